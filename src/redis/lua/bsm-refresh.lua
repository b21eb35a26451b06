-- bsm-refresh.lua: bsm/redislock's refresh: only when every key holds the caller's whole value,
-- give each the new TTL.
-- KEYS   the lock's keys   ARGV[1] value   ARGV[2] lease ms
-- Returns 1 refreshed, 0 some key does not hold this value: the lock is lost.
-- Errors  REDLOCK_BADARG lease <value>; nothing written.
local err = redlock_bad_ms(ARGV[2], 'lease')
if err then return err end
local values = redis.call('mget', unpack(KEYS))
for i = 1, #KEYS do
  if values[i] ~= ARGV[1] then return 0 end
end
for _, key in ipairs(KEYS) do
  redis.call('pexpire', key, ARGV[2])
end
return 1
