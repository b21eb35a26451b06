-- lock-release.lua: Redisson RLock / RSpinLock / RFencedLock unlock (redisson-protocol.md §2.1, §2.4).
-- Decrements the caller's hold; a remaining hold gets the lease re-applied (Redisson's
-- internalLockLeaseTime), the last one deletes the hash and publishes 0 so one waiter wakes.
-- KEYS[1] lock hash   KEYS[2] unlock channel `redisson_lock__channel:{name}`   KEYS[3] fair queue (see lock-acquire.lua)
-- ARGV[1] lease ms re-applied to a remaining hold   ARGV[2] holder   ARGV[3] 'publish' | 'spublish' | '' (spin: none)
-- Returns nil not held by the caller (Redisson: IllegalMonitorStateException), 0 still held (count
--         decremented), 1 released.
-- Errors  REDLOCK_WRONGTYPE / REDLOCK_WRONGKIND rw|fair / REDLOCK_BADARG lease: nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease') or redlock_wrong_plain(KEYS[1], KEYS[3])
if err then return err end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  return nil
end
local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if counter > 0 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 0
end
redis.call('del', KEYS[1])
redlock_publish(ARGV[3], KEYS[2], 0)
return 1
