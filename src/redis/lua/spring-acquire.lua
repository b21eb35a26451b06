-- spring-acquire.lua: Spring Integration RedisLockRegistry's obtain (docs/lock-formats.md): the
-- registry's client id at the key with PX expiry; a key already holding that client id is
-- re-entered by moving its expiry, as every lock of one registry shares the one id.
-- KEYS[1] lock key (<registryKey>:<lockKey>)   ARGV[1] client id   ARGV[2] lease ms
-- Returns {1, 1} acquired (or re-entered)
--         {0, pttl, value, '1'} held by another client id
-- Errors  REDLOCK_WRONGTYPE <type>: not a string; REDLOCK_BADARG lease <value>. Nothing written.
local err = redlock_bad_ms(ARGV[2], 'lease') or redlock_wrong_type(KEYS[1], 'string')
if err then return err end
local value = redis.call('get', KEYS[1])
if value == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return { 1, 1 }
end
if not value then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return { 1, 1 }
end
return { 0, redis.call('pttl', KEYS[1]), value, '1' }
