-- token-force-unlock.lua: break-glass delete of a token lock whoever holds it. Token locks have no
-- unlock channel (their waiters poll), so nothing is published.
-- KEYS[1] lock key
-- Returns 1 deleted, 0 there was no lock.
-- Errors  REDLOCK_WRONGTYPE <type>: the key is not a string (a Redisson lock, application data);
--         nothing deleted.
local err = redlock_wrong_type(KEYS[1], 'string')
if err then return err end
return redis.call('del', KEYS[1])
