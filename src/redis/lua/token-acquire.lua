-- token-acquire.lua: single-key token lock acquire, node-redlock's ACQUIRE_SCRIPT for one key
-- (lock-formats.md): SET token PX lease only when the key does not exist.
-- An existing key is refused even when it already holds our own token: node-redlock checks EXISTS,
-- not the value, so it never re-enters, and neither do we (a retry with the same token after a
-- lost reply therefore reports "held by <our token>", which is the truth).
-- Unlike node-redlock, a key of another type is an error rather than a silent refusal, so a user
-- learns that the name holds a Redisson lock or application data, not a busy token lock.
-- KEYS[1] lock key   ARGV[1] token (the value)   ARGV[2] lease ms
-- Returns {1, 1, -1} acquired
--         {0, pttl, value, '1'} held (pttl -1 = key without TTL, the SETNX+EXPIRE bug)
-- Errors  REDLOCK_WRONGTYPE <type>: the key is not a string; nothing written.
--         REDLOCK_BADARG lease <value>: not a whole number of ms in 1..24 days; nothing written.
-- SET NX writes nothing when the key exists, whatever its type, so the guard runs only on the
-- refusal path: a free lock costs one command inside the script (node-redlock: EXISTS + SET).
local err = redlock_bad_ms(ARGV[2], 'lease')
if err then return err end
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return { 1, 1, -1 }
end
err = redlock_wrong_type(KEYS[1], 'string')
if err then return err end
local value = redis.call('get', KEYS[1])
if not value then
  -- Unreachable on Redis >= 7 (time is frozen inside a script); on older servers the key may
  -- expire between SET and GET: report "just freed", the caller's retry will take it.
  return { 0, 0 }
end
return { 0, redis.call('pttl', KEYS[1]), value, '1' }
