-- token-release.lua: compare-and-delete, node-redlock's RELEASE_SCRIPT for one key. Used only where
-- the server has neither DELEX ... IFEQ (Redis 8.4, Valkey 9.2) nor DELIFEQ (Valkey 9.0).
-- Token locks have no waiters to wake: nothing is published.
-- KEYS[1] lock key   ARGV[1] token
-- Returns nil the key does not hold this token (expired, or taken by someone else), 1 released.
-- Errors  REDLOCK_WRONGTYPE <type>: the key is not a string; nothing deleted.
local err = redlock_wrong_type(KEYS[1], 'string')
if err then return err end
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  return 1
end
return nil
