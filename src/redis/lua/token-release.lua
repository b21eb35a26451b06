-- token-release.lua: compare-and-delete, node-redlock's RELEASE_SCRIPT for one key. Used only where
-- the server has neither DELEX ... IFEQ (Redis 8.4, Valkey 9.2) nor DELIFEQ (Valkey 9.0).
-- Token locks have no waiters to wake: nothing is published.
-- KEYS[1] lock key   ARGV[1] token
-- Returns nil the key does not hold this token (expired, or taken by someone else), 1 released.
-- Errors  REDLOCK_WRONGTYPE <type>: the key is not a string; nothing deleted.
-- GET fails on a key of another type before anything is deleted; only then is the guard consulted
-- for its clearer error, so a normal release costs GET + DEL like node-redlock's.
local value = redis.pcall('get', KEYS[1])
if type(value) == 'table' and value.err then return redlock_wrong_type(KEYS[1], 'string') end
if value == ARGV[1] then
  redis.call('del', KEYS[1])
  return 1
end
return nil
