-- fair-release.lua: Redisson RFairLock unlock (redisson-protocol.md §2.2). The last hold deletes the
-- hash and wakes only the queue head, on its own channel. Unlocking a fair lock that has already
-- expired (or was never there) is not an error: it returns 1 and still wakes the head, so a
-- waiter is not left sleeping on its (possibly minutes long) timer.
-- KEYS[1] lock hash   KEYS[2] queue `redisson_lock_queue:{name}`   KEYS[3] deadlines `redisson_lock_timeout:{name}`
-- KEYS[4] channel base `redisson_lock__channel:{name}` (the head's channel is `<base>:<head>`)
-- ARGV[1] lease ms re-applied to a remaining hold   ARGV[2] holder   ARGV[3] now: client epoch ms
-- ARGV[4] 'publish' | 'spublish'
-- Returns nil not held by the caller (Redisson: IllegalMonitorStateException), 0 still held (count
--         decremented), 1 released (or already gone).
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND rw: a key is not what a fair lock uses; nothing written.
--         REDLOCK_BADARG lease|now <value>: a number out of range; nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease') or redlock_bad_now(ARGV[3])
  or redlock_wrong_hash(KEYS[1], false) or redlock_fair_guard(KEYS[2], KEYS[3])
if err then return err end
redlock_fair_purge(KEYS[2], KEYS[3], tonumber(ARGV[3]))
if redis.call('exists', KEYS[1]) == 0 then
  redlock_fair_wake_head(KEYS[2], KEYS[4], ARGV[4])
  return 1
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[2], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 0
end
redis.call('del', KEYS[1])
redlock_fair_wake_head(KEYS[2], KEYS[4], ARGV[4])
return 1
