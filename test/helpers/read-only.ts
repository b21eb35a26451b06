import type { Redis } from 'ioredis';

// The read-only proofs of inspect, inspect --watch, ls and doctor (issue 3: "no command here may
// write to Redis, ever") share one judgement of what MONITOR saw: Redis's own COMMAND INFO flags.

/** A command's flags, or its subcommand's (CLIENT LIST, PUBSUB NUMSUB, ...). */
async function flagsOf(raw: Redis, args: readonly string[]): Promise<string[]> {
  const [info] = (await raw.call('COMMAND', 'INFO', args[0]!)) as [unknown[]];
  const name = `${args[0]}|${args[1] ?? ''}`.toLowerCase();
  const sub = ((info[9] ?? []) as unknown[][]).find((s) => String(s[0]).toLowerCase() === name);
  return ((sub ?? info)[2] as unknown[]).map(String);
}

/**
 * The commands among `seen` (MONITOR argument lists) that change anything: a write, a publish
 * (it wakes waiters), or anything that may replicate. EVAL/EVALSHA carry may_replicate whatever
 * the script does, so the script's own calls, which MONITOR also shows, are judged instead.
 */
export async function sideEffects(raw: Redis, seen: readonly (readonly string[])[]): Promise<string[]> {
  const distinct = new Map(seen.map((args) => [`${args[0]} ${args[1] ?? ''}`.toLowerCase().trim(), args]));
  const offenders: string[] = [];
  for (const [name, args] of distinct) {
    const flags = await flagsOf(raw, args);
    const changes = flags.includes('write') || /^s?publish/.test(name) || (flags.includes('may_replicate') && !/^eval/.test(name));
    if (changes) offenders.push(`${name} [${flags.join(',')}]`);
  }
  return offenders;
}

/** DUMP of every key, names hex-encoded (binary names too): equal before and after means nothing changed. */
export async function dumpAll(raw: Redis): Promise<Map<string, string>> {
  const keys = await raw.keysBuffer('*');
  const dumps = await Promise.all(keys.map((k) => raw.dumpBuffer(k)));
  return new Map(keys.map((k, i) => [k.toString('hex'), dumps[i]!.toString('hex')]));
}

/**
 * DUMP and absolute expiry (PEXPIRETIME, -1 none) of every key: DUMP alone does not carry the
 * TTL, so a PEXPIRE that would make application data expire shows only here.
 */
export async function dumpAndExpiryAll(raw: Redis): Promise<Map<string, string>> {
  const dumps = await dumpAll(raw);
  const expiries = await Promise.all([...dumps.keys()].map((k) => raw.call('PEXPIRETIME', Buffer.from(k, 'hex'))));
  return new Map([...dumps].map(([k, dump], i) => [k, `${dump} expires ${String(expiries[i])}`]));
}
