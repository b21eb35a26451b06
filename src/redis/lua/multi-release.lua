-- multi-release.lua: unlock of Redisson's group multi-lock (RedissonFasterMultiLock.unlockInnerAsync
-- at redisson-3.52.0). Each value whose hold is still live loses one hold; its last hold removes
-- its three fields, a remaining one gets its expiry moved to now + lease. A value whose expiry has
-- passed makes the whole unlock fail (Redisson: IllegalMonitorStateException), after the others
-- were counted down, as Redisson's does. Waiters hear RLock's unlock message (0) on the group's
-- channel whenever the unlock went through, or found no group.
-- KEYS[1] group hash   KEYS[2] channel `redisson_lock__channel:{group}`
-- ARGV as Redisson's unlock sends them, so a trace reads ours alike:
-- ARGV[1] owner   ARGV[2] message (0)   ARGV[3] lease ms   ARGV[4] 'publish' | 'spublish'
-- ARGV[5] unused (Redisson's unlock-latch timeout; we keep no latch)   ARGV[6] now, epoch ms
-- ARGV[7..] values (none: every value the owner holds in the group)
-- Returns nil not held by this owner, 0 holds remain, 1 every value freed.
-- Errors  REDLOCK_WRONGTYPE <type>; REDLOCK_BADARG lease / now: nothing written.
local err = redlock_bad_ms(ARGV[3], 'lease') or redlock_bad_now(ARGV[6]) or redlock_wrong_type(KEYS[1], 'hash')
if err then return err end
local owner, now, lease = ARGV[1], tonumber(ARGV[6]), tonumber(ARGV[3])
if redis.call('exists', KEYS[1]) == 0 then
  redlock_publish(ARGV[4], KEYS[2], ARGV[2])
  return nil
end
local values = redlock_multi_values(KEYS[1], owner, ARGV, 7)
if #values == 0 then return nil end
local failed, all_freed = false, true
for _, value in ipairs(values) do
  local prefix = value .. ':' .. owner
  local ends = tonumber(redis.call('hget', KEYS[1], prefix .. ':expire_time'))
  if ends and ends >= now then
    if redis.call('hincrby', KEYS[1], prefix .. ':lock_count', -1) <= 0 then
      redis.call('hdel', KEYS[1], prefix .. ':expire_time', prefix .. ':lock_count', value)
    else
      if ends < now + lease then redis.call('hset', KEYS[1], prefix .. ':expire_time', now + lease) end
      all_freed = false
    end
  else
    failed, all_freed = true, false
  end
end
if failed then return nil end
redlock_publish(ARGV[4], KEYS[2], ARGV[2])
if not all_freed and redis.call('pttl', KEYS[1]) < lease then redis.call('pexpire', KEYS[1], lease) end
return all_freed and 1 or 0
