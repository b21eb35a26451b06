// python-redis-lock (ionelmc/python-redis-lock; docs/lock-formats.md, "Python and Go libraries"):
// `Lock(redis, name)` writes `lock:<name>` holding a 24-character id (base64 of 18 random bytes,
// so never padded), with no TTL unless `expire=` is given, and its waiters block in BLPOP on the
// list `lock-signal:<name>`, which release and reset() refill with one element that expires
// after `signal_expire` (1000 ms by default).

export const PYTHON_REDIS_LOCK = 'python-redis-lock';

const KEY_PREFIX = 'lock:';
const SIGNAL_PREFIX = 'lock-signal:';
/** base64 of 18 bytes: 24 characters of the standard alphabet and no `=`. */
const DEFAULT_ID = /^[A-Za-z0-9+/]{24}$/;

/** How long its release leaves the wake-up element in the signal list (`signal_expire`, ms). */
export const SIGNAL_EXPIRE_MS = 1000;

/**
 * Its key prefix and its default id together: either alone is common application data (a key
 * named `lock:...`, a 24-character salt), so only both make a string this library's lock, TTL
 * or not.
 */
export function isPythonRedisLock(key: string, value: string): boolean {
  return key.startsWith(KEY_PREFIX) && key.length > KEY_PREFIX.length && DEFAULT_ID.test(value);
}

/** Whether `key` can be one of its lock keys (`lock:<name>`). */
export function isPythonRedisLockKey(key: string): boolean {
  return key.startsWith(KEY_PREFIX) && key.length > KEY_PREFIX.length;
}

/** `lock:<name>` → `lock-signal:<name>`, the list its waiters block on. */
export function signalKeyOf(lockKey: string): string {
  return SIGNAL_PREFIX + lockKey.slice(KEY_PREFIX.length);
}

/** `lock-signal:<name>` → `lock:<name>`; undefined for any other key. */
export function lockKeyOfSignal(key: string): string | undefined {
  return key.startsWith(SIGNAL_PREFIX) && key.length > SIGNAL_PREFIX.length
    ? KEY_PREFIX + key.slice(SIGNAL_PREFIX.length)
    : undefined;
}

/** Why a lock of this library without TTL is its normal state, and still a risk (inspect's note). */
export const NO_EXPIRY_NOTE =
  "no TTL, python-redis-lock's default (no expire= given): normal for it, but if its holder dies without releasing, it stays locked until someone force-unlocks it; expire= with auto_renewal=True bounds that";
