import type { HolderView } from '../lock-view.js';
import { HUGE_HOLD_COUNT, warn } from './warnings.js';
import type { LockWarning } from '../lock-view.js';

// Redisson writes `<uuid>:<thread>` (`:write` for a writer); node-redisson writes
// `<uuid>:<clientId>` with a UUID as client id. Both are "client, then who inside it".
const LOCK_FIELD = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}):([^:]+)(:write)?$/;
const COUNT = /^[1-9]\d*$/;

/** A hash field/value pair that a Redisson-style lock would write. */
export function isHolderEntry(field: string, value: string): boolean {
  return LOCK_FIELD.test(field) && COUNT.test(value);
}

export function holderView(field: string, value: string): HolderView {
  const match = LOCK_FIELD.exec(field);
  const count = COUNT.test(value) ? Number(value) : 0;
  if (!match) return { owner: field, count };
  return { owner: field, client: match[1], thread: match[2], count, ...(match[3] ? { write: true } : {}) };
}

/** Holders of a lock hash body (field, value, ...), skipping the rw `mode` field. */
export function hashHolders(body: readonly string[]): HolderView[] {
  const holders: HolderView[] = [];
  for (let i = 0; i + 1 < body.length; i += 2) {
    if (body[i] !== 'mode') holders.push(holderView(body[i]!, body[i + 1]!));
  }
  return holders;
}

/** Value of one field in a flat hash body. */
export function hashField(body: readonly string[], field: string): string | undefined {
  for (let i = 0; i + 1 < body.length; i += 2) if (body[i] === field) return body[i + 1];
  return undefined;
}

export function holdCountWarnings(holders: readonly HolderView[]): LockWarning[] {
  return holders
    .filter((h) => h.count > HUGE_HOLD_COUNT)
    .map((h) =>
      warn(
        'huge-hold-count',
        'warning',
        `${h.owner} holds it ${h.count} times: lock() without unlock() in a loop? It frees only after as many unlocks, or when the lease ends`,
      ),
    );
}
