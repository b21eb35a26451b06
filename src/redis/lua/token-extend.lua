-- token-extend.lua: compare-and-extend, node-redlock's EXTEND_SCRIPT for one key: after comparing
-- the value it re-SETs it with PX (not PEXPIRE), exactly as node-redlock does.
-- KEYS[1] lock key   ARGV[1] token   ARGV[2] lease ms
-- Returns 1 extended, 0 the key does not hold this token: the lock is lost.
-- Errors  REDLOCK_WRONGTYPE <type>: not a string; REDLOCK_BADARG lease <value>. Nothing written.
local err = redlock_bad_ms(ARGV[2], 'lease') or redlock_wrong_type(KEYS[1], 'string')
if err then return err end
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
