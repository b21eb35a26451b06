-- fair-force-unlock.lua: Redisson RFairLock forceUnlock (redisson-protocol.md §2.2): deletes the lock
-- hash whoever holds it and wakes the queue head on its own channel. The queue is kept: waiters
-- still take their turns in order.
-- KEYS[1] lock hash   KEYS[2] queue `redisson_lock_queue:{name}`   KEYS[3] deadlines `redisson_lock_timeout:{name}`
-- KEYS[4] channel base `redisson_lock__channel:{name}`
-- ARGV[1] now: client epoch ms   ARGV[2] 'publish' | 'spublish'
-- Returns 1 deleted, 0 there was no lock (nobody is woken then).
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND rw: a key is not what a fair lock uses; nothing written.
--         REDLOCK_BADARG now <value>: not a clock reading; nothing written.
local err = redlock_bad_now(ARGV[1]) or redlock_wrong_hash(KEYS[1], false) or redlock_fair_guard(KEYS[2], KEYS[3])
if err then return err end
redlock_fair_purge(KEYS[2], KEYS[3], tonumber(ARGV[1]))
if redis.call('del', KEYS[1]) == 1 then
  redlock_fair_wake_head(KEYS[2], KEYS[4], ARGV[2])
  return 1
end
return 0
