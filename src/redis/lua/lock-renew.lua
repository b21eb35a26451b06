-- lock-renew.lua: watchdog renewal of a hash lock held by one holder (redisson-protocol.md §2.1 LockTask).
-- Used for RLock, spin, fenced, fair (only the hash is renewed) and the write lock (holder `...:write`),
-- each refusing the other families' keys: renewing a reader through this script would extend the
-- hash but not its rwlock_timeout keys, and another reader's unlock would then delete the lock.
-- KEYS[1] lock hash   KEYS[2] fair queue `redisson_lock_queue:{name}`
-- ARGV[1] lease ms   ARGV[2] holder field   ARGV[3] family: 'lock' (RLock, spin, fenced), 'fair', 'write'
-- Returns 1 renewed, 0 the caller holds no hold (lock lost: renewal must stop).
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND rw|plain|fair / REDLOCK_BADARG lease: nothing written.
local family = ARGV[3]
local err = redlock_bad_ms(ARGV[1], 'lease')
if not err then
  if family == 'lock' then err = redlock_wrong_plain(KEYS[1], KEYS[2])
  else err = redlock_wrong_hash(KEYS[1], family == 'write') end
end
if err then return err end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 1
end
return 0
