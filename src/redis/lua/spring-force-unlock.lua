-- spring-force-unlock.lua: break-glass delete of a Spring RedisLockRegistry lock whoever holds it,
-- waking PUB_SUB_LOCK waiters with the same message the registry's own unlock publishes.
-- KEYS[1] lock key   ARGV[1..n] unlock channels (one per possible registry-key split)
-- Returns 1 deleted, 0 there was no lock (nothing published).
-- Errors  REDLOCK_WRONGTYPE <type>: not a string; nothing deleted.
local err = redlock_wrong_type(KEYS[1], 'string')
if err then return err end
if redis.call('unlink', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV do
  redis.call('publish', ARGV[i], KEYS[1])
end
return 1
