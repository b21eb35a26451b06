-- spring-renew.lua: Spring RedisLockRegistry's renewal in its Lua form (7.1+ first tries
-- `SET key id IFEQ id PX ms`, which does the same where the server has it): move the expiry only
-- while the key still holds the client id.
-- KEYS[1] lock key   ARGV[1] client id   ARGV[2] lease ms
-- Returns 1 renewed, 0 the key no longer holds this id: the lock is lost.
-- Errors  REDLOCK_WRONGTYPE <type>: not a string; REDLOCK_BADARG lease <value>. Nothing written.
local err = redlock_bad_ms(ARGV[2], 'lease') or redlock_wrong_type(KEYS[1], 'string')
if err then return err end
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0
