import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { tokenLock } from './token.js';
import type { LockProtocol } from './types.js';

// ShedLock's Redis providers, 6.7 on with safeUpdate (docs/lock-formats.md): SET value NX PX to
// lock, compare-and-PEXPIRE to extend, compare-and-DEL to unlock. The stored value names the
// time and the host, like ShedLock's, so inspect and ShedLock's own logs show who holds it.

/** `ADDED:<instant, ms precision>@<host>:<uuid>`, as ShedLock's buildValue() writes it. */
export function shedLockValue(at: number, id: string = randomUUID(), host: string = hostname()): string {
  return `ADDED:${new Date(at).toISOString()}@${host}:${id}`;
}

// A long-lived client (a REPL client) must send the same value at every release and renewal:
// its value is made once, at its first use, and kept for the process's life.
const clientValues = new Map<string, string>();

/**
 * A ShedLock provider: refused whenever the key exists (ShedLock never re-enters: the run is
 * skipped), and it has no waiters to wake; `--wait` polls like a token lock.
 */
export const shedLock: LockProtocol = {
  ...tokenLock,
  kind: 'shedlock',
  tokenOwner: {
    fresh: () => shedLockValue(Date.now()),
    forClient: (uuid) => {
      let value = clientValues.get(uuid);
      if (value === undefined) {
        value = shedLockValue(Date.now(), uuid);
        clientValues.set(uuid, value);
      }
      return value;
    },
  },
};
