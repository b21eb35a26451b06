// Which lock a key belongs to. Redisson's companion keys (a fair lock's queue and timeout set, a
// read hold's timeout key, the unlock latch, the fenced token counter) are named after the lock
// (docs/redisson-protocol.md §1.1): they are bookkeeping of that lock, never locks of their own.

import { lockKeyOfSignal } from '../decode/python-redis-lock.js';

export type KeyRole = 'lock' | 'queue' | 'timeouts' | 'latch' | 'token-counter' | 'read-timeout' | 'channel' | 'wake-list';

export interface KeyInfo {
  readonly role: KeyRole;
  /** The lock's name (the key itself for role `lock`). */
  readonly lock: string;
}

const PREFIXED: readonly (readonly [string, KeyRole])[] = [
  ['redisson_lock_queue:', 'queue'],
  ['redisson_lock_timeout:', 'timeouts'],
  ['redisson_unlock_latch:', 'latch'],
  ['redisson_lock_token:', 'token-counter'],
  ['redisson_lock__channel:', 'channel'],
  ['redisson_rwlock:', 'channel'],
  ['redisson_sc:', 'channel'],
  ['redisson_countdownlatch__channel__', 'channel'],
];
const READ_TIMEOUT = /^(.*):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:-?\d+:rwlock_timeout(?::\d+)?$/;

/** Undoes Redisson's braced(): `{orders}` -> `orders`, a name that carried its own braces stays. */
function unbrace(text: string): string {
  return /^\{[^{}]*\}$/.test(text) ? text.slice(1, -1) : text;
}

/** True for a key that is a lock of its own (keyInfo's role `lock`), told without building its KeyInfo. */
export function isLockKey(key: string): boolean {
  if (!key.startsWith('redisson_') && !key.includes(':rwlock_timeout') && lockKeyOfSignal(key) === undefined) return true;
  return keyInfo(key).role === 'lock';
}

/** The role of a key and the lock it belongs to. */
export function keyInfo(key: string): KeyInfo {
  // Most keys are plain lock names: two cheap tests before any prefix loop or regex.
  const companion = key.startsWith('redisson_');
  // python-redis-lock's waiters block on this list; its release pushes to it.
  const signalled = companion ? undefined : lockKeyOfSignal(key);
  if (signalled !== undefined) return { role: 'wake-list', lock: signalled };
  if (!companion && !key.includes(':rwlock_timeout')) return { role: 'lock', lock: key };
  for (const [prefix, role] of companion ? PREFIXED : []) {
    if (!key.startsWith(prefix)) continue;
    let rest = key.slice(prefix.length);
    // The latch carries a request id after the lock name: redisson_unlock_latch:{name}:<32 hex>.
    if (role === 'latch') rest = rest.replace(/:[0-9a-f]{32}$/, '');
    return { role, lock: unbrace(rest) };
  }
  const read = READ_TIMEOUT.exec(key);
  if (read) return { role: 'read-timeout', lock: unbrace(read[1]!) };
  return { role: 'lock', lock: key };
}

/** Redisson's holder field: `<uuid>:<thread>` or `<uuid>:<thread>:write`. */
export const REDISSON_OWNER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:-?\d+(?::write)?$/;
