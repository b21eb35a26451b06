-- multi-renew.lua: the watchdog of Redisson's group multi-lock (renewal/FastMultilockTask at
-- redisson-3.52.0): every value the owner holds gets its expiry moved to now + lease (never
-- back), and the group's TTL is raised to the lease. Refused when one of the values asked for is
-- not the owner's.
-- KEYS[1] group hash
-- ARGV[1] lease ms   ARGV[2] now, epoch ms   ARGV[3] owner
-- ARGV[4..] values (none: every value the owner holds in the group)
-- Returns 1 renewed, 0 not held (by this owner, or the group is gone).
-- Errors  REDLOCK_WRONGTYPE <type>; REDLOCK_BADARG lease / now: nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease') or redlock_bad_now(ARGV[2]) or redlock_wrong_type(KEYS[1], 'hash')
if err then return err end
local lease, now, owner = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local values = redlock_multi_values(KEYS[1], owner, ARGV, 4)
if #values == 0 then return 0 end
for _, value in ipairs(values) do
  if redis.call('hget', KEYS[1], value) ~= owner then return 0 end
end
for _, value in ipairs(values) do
  local field = value .. ':' .. owner .. ':expire_time'
  local ends = tonumber(redis.call('hget', KEYS[1], field))
  if not ends or ends < now + lease then redis.call('hset', KEYS[1], field, now + lease) end
end
if redis.call('pttl', KEYS[1]) < lease then redis.call('pexpire', KEYS[1], lease) end
return 1
