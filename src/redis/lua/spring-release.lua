-- spring-release.lua: Spring RedisLockRegistry's PUB_SUB_LOCK unlock: compare the client id,
-- UNLINK, then publish the key so waiters of a PUB_SUB_LOCK registry try again at once (a
-- SPIN_LOCK registry polls and hears nothing, which costs it nothing). The channel is
-- `<registryKey>-channel:<key>`; where the registry key ends is not in the key, so the caller
-- passes one channel per possible split (src/core/decode/spring.ts).
-- KEYS[1] lock key   ARGV[1] client id   ARGV[2..n] unlock channels
-- Returns 1 released, 0 the key does not hold this id (expired, or taken by someone else).
-- Errors  REDLOCK_WRONGTYPE <type>: not a string; nothing deleted.
local err = redlock_wrong_type(KEYS[1], 'string')
if err then return err end
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('unlink', KEYS[1])
for i = 2, #ARGV do
  redis.call('publish', ARGV[i], KEYS[1])
end
return 1
