-- bsm-release.lua: bsm/redislock's release: only when every key holds the caller's whole value
-- (token and metadata), delete them all. Its waiters poll, so nothing is published or pushed.
-- KEYS   the lock's keys   ARGV[1] value
-- Returns 1 released, nil some key does not hold this value (nothing deleted).
-- MGET answers nil for a key of another type, so such a key is "not held" and never deleted.
local values = redis.call('mget', unpack(KEYS))
for i = 1, #KEYS do
  if values[i] ~= ARGV[1] then return nil end
end
redis.call('del', unpack(KEYS))
return 1
