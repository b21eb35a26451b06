// Keys that belong to a lock but are not the lock (docs/redisson-protocol.md §2, §4): inspecting one
// says whose it is, and ls skips them when it already lists the lock.

import { lockKeyOfSignal } from './python-redis-lock.js';

export type CompanionRole =
  | 'fair-queue'
  | 'fair-deadlines'
  | 'fencing-counter'
  | 'unlock-latch'
  | 'read-hold-timeout'
  | 'permit-timeouts'
  | 'wake-list'
  | 'rate-limiter-value'
  | 'rate-limiter-permits';

export interface Companion {
  readonly role: CompanionRole;
  /** The lock's name (what to inspect instead). */
  readonly lock: string;
}

const ROLE_TEXT: Record<CompanionRole, string> = {
  'fair-queue': 'the wait queue of fair lock',
  'fair-deadlines': 'the waiter deadlines of fair lock',
  'fencing-counter': 'the fencing token counter of fenced lock',
  'unlock-latch': "a transient unlock record (Redisson's unlock latch) of lock",
  'read-hold-timeout': 'one read hold of read-write lock',
  'permit-timeouts': 'the permit deadlines of expirable semaphore',
  'wake-list': "the wake-up list (its waiters' BLPOP) of python-redis-lock",
  'rate-limiter-value': "the permits left (one client's, when it ends in a client id) of rate limiter",
  'rate-limiter-permits': "the permits handed out (one client's, when it ends in a client id) of rate limiter",
};

/** The Redis type each companion has: a key of another type with such a name is not one. */
export const COMPANION_TYPE: Record<CompanionRole, string> = {
  'fair-queue': 'list',
  'fair-deadlines': 'zset',
  'fencing-counter': 'string',
  'unlock-latch': 'string',
  'read-hold-timeout': 'string',
  'permit-timeouts': 'zset',
  'wake-list': 'list',
  'rate-limiter-value': 'string',
  'rate-limiter-permits': 'zset',
};

const PREFIXED: readonly [string, CompanionRole][] = [
  ['redisson_lock_queue:', 'fair-queue'],
  ['redisson_lock_timeout:', 'fair-deadlines'],
  ['redisson_lock_token:', 'fencing-counter'],
  ['redisson_unlock_latch:', 'unlock-latch'],
];

/** Undoes braced(): `{name}` → `name`; a name that carried its own brace stays as it is. */
function unbrace(text: string): string {
  return /^\{[^{}]*\}$/.test(text) ? text.slice(1, -1) : text;
}

/** The lock a companion key belongs to, or undefined for any other key. */
export function companionOf(key: string): Companion | undefined {
  for (const [prefix, role] of PREFIXED) {
    if (!key.startsWith(prefix)) continue;
    let rest = key.slice(prefix.length);
    // The latch appends `:<32 hex request id>` after the braced name.
    if (role === 'unlock-latch') rest = rest.replace(/:[0-9a-f]{32}$/, '');
    return { role, lock: unbrace(rest) };
  }
  const signalled = lockKeyOfSignal(key);
  if (signalled !== undefined) return { role: 'wake-list', lock: signalled };
  const hold = /^(.*):[0-9a-fA-F-]{36}:[^:]+:rwlock_timeout:\d+$/.exec(key);
  if (hold) return { role: 'read-hold-timeout', lock: unbrace(hold[1]!) };
  const permits = /^(\{[^{}]*\}|.*\{.*):timeout$/.exec(key);
  if (permits) return { role: 'permit-timeouts', lock: unbrace(permits[1]!) };
  // RRateLimiter: `{name}:value` / `{name}:permits`, PER_CLIENT ones with `:<client uuid>` after.
  const limiter = /^(\{[^{}]*\}|.*\{.*):(value|permits)(:[0-9a-fA-F-]{36})?$/.exec(key);
  if (limiter) return { role: limiter[2] === 'value' ? 'rate-limiter-value' : 'rate-limiter-permits', lock: unbrace(limiter[1]!) };
  return undefined;
}

export function describeCompanion(c: Companion): string {
  return `${ROLE_TEXT[c.role]} "${c.lock}"`;
}
