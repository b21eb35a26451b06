-- lock-force-unlock.lua: Redisson forceUnlock for RLock / spin / fenced (docs/redisson-protocol.md §2.1, §2.4).
-- Deletes the lock hash whoever holds it, and publishes 0 so a waiter wakes (spin locks: no publish).
-- The fencing counter of a fenced lock is kept: tokens never go back.
-- KEYS[1] lock hash   KEYS[2] unlock channel   ARGV[1] 'publish' | 'spublish' | ''
-- Returns 1 deleted, 0 there was no lock.
local err = redlock_wrong_hash(KEYS[1], false)
if err then return err end
if redis.call('del', KEYS[1]) == 1 then
  redlock_publish(ARGV[1], KEYS[2], 0)
  return 1
end
return 0
