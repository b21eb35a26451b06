import type { LockView } from '../lock-view.js';
import { isShedLockValue } from './shedlock.js';
import { BSM_REDISLOCK, isBsmRedislock } from './bsm.js';
import { isPythonRedisLock, NO_EXPIRY_NOTE, PYTHON_REDIS_LOCK } from './python-redis-lock.js';

export type TokenLibrary = NonNullable<LockView['library']>;

/** The decoder's note code on a lock whose library left it without TTL on purpose. */
export const NO_TTL_BY_DESIGN = 'no-ttl-by-design';

/**
 * Libraries whose locks have no TTL unless the caller asks for one, each with inspect's note on
 * why that normal state is still a risk.
 */
export const WITHOUT_DEFAULT_EXPIRY: ReadonlyMap<TokenLibrary, string> = new Map([[PYTHON_REDIS_LOCK, NO_EXPIRY_NOTE]]);

const HEX32 = /^[0-9a-f]{32}$/;
const REDSYNC = /^[A-Za-z0-9+/]{22}==$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** 100-ns intervals between the UUID epoch (1582-10-15) and the Unix epoch. */
const UUID_EPOCH_OFFSET = 122_192_928_000_000_000n;
const YEAR_MS = 366 * 86_400_000;

/**
 * redis-py stores `uuid1().hex`, node-redlock 16 random bytes: both are 32 lowercase hex. A
 * uuid1 has version 1, the RFC variant, and a timestamp: call it redis-py only when that
 * timestamp is within a year of the server's clock. Random bytes pass all three about once in
 * 100,000 tokens, so a node-redlock token is almost never mistaken for redis-py.
 */
export function isRecentUuid1Hex(value: string, nowMs: number): boolean {
  if (!HEX32.test(value) || value[12] !== '1' || !'89ab'.includes(value[16]!)) return false;
  const ticks = (BigInt(`0x${value.slice(13, 16)}`) << 48n) | (BigInt(`0x${value.slice(8, 12)}`) << 32n) | BigInt(`0x${value.slice(0, 8)}`);
  const ms = Number((ticks - UUID_EPOCH_OFFSET) / 10_000n);
  return Math.abs(ms - nowMs) <= YEAR_MS;
}

/**
 * Which library a token lock's value looks like (docs/lock-formats.md): 32 hex → node-redlock, or
 * redis-py when it is a recent uuid1; 22 base64 chars + `==` → redsync; a UUID under `mutex:` →
 * redis-semaphore, under another `prefix:` → Spring RedisLockRegistry; `ADDED:<instant>@<host>...` →
 * ShedLock; `lock:<name>` holding 24 base64 characters → python-redis-lock; a 22-character URL-safe
 * token (plus metadata under a lock-like name) → bsm/redislock; anything else → unknown.
 */
export function tokenLibrary(key: string, value: string, nowMs: number): TokenLibrary {
  if (isShedLockValue(value)) return 'shedlock';
  if (isPythonRedisLock(key, value)) return PYTHON_REDIS_LOCK;
  if (HEX32.test(value)) return isRecentUuid1Hex(value, nowMs) ? 'redis-py' : 'node-redlock';
  if (REDSYNC.test(value)) return 'redsync';
  if (UUID.test(value)) {
    if (key.startsWith('mutex:')) return 'redis-semaphore';
    if (key.includes(':')) return 'spring';
  }
  if (isBsmRedislock(key, value)) return BSM_REDISLOCK;
  return 'unknown';
}
