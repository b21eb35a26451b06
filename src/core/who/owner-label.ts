// The label some libraries store with the owner id, saying who took the lock: ShedLock's Redis
// provider writes `ADDED:<ISO time>@<host name>` as the value (docs/guide/who.md). Redisson's
// `<uuid>:<thread>` and random tokens name no one: those are resolved through connections only.

const SHEDLOCK_VALUE = /^ADDED:[0-9T:.\-+Z]+@(.+)$/;

/** The host or process the stored owner value names, when its library writes one. */
export function ownerLabel(value: string): string | undefined {
  return SHEDLOCK_VALUE.exec(value)?.[1];
}
