-- lock-force-unlock.lua: Redisson forceUnlock for RLock / spin / fenced (redisson-protocol.md §2.1, §2.4).
-- Deletes the lock hash whoever holds it, and publishes 0 so a waiter wakes (spin locks: no publish).
-- The fencing counter of a fenced lock is kept: tokens never go back.
-- KEYS[1] lock hash   KEYS[2] unlock channel   KEYS[3] fair queue (see lock-acquire.lua)
-- ARGV[1] 'publish' | 'spublish' | ''
-- Returns 1 deleted, 0 there was no lock.
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND rw|fair: not a plain lock; nothing deleted.
local err = redlock_wrong_plain(KEYS[1], KEYS[3])
if err then return err end
if redis.call('del', KEYS[1]) == 1 then
  redlock_publish(ARGV[1], KEYS[2], 0)
  return 1
end
return 0
