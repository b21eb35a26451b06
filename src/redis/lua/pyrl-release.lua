-- pyrl-release.lua: python-redis-lock's release (docs/lock-formats.md, "Python and Go libraries"):
-- compare the id, then refill the wake-up list its waiters BLPOP on with one element that lives
-- only a moment, then delete the lock. Emptying the list first leaves exactly one wake-up in it.
-- KEYS[1] lock key (`lock:<name>`)   KEYS[2] wake-up list (`lock-signal:<name>`)
-- ARGV[1] id (the value)   ARGV[2] how long the wake-up element lives, ms
-- Returns 1 released, nil the key does not hold this id (expired, or someone else's).
-- Errors  REDLOCK_WRONGTYPE <type>: the lock or the list has another type; nothing changed.
--         REDLOCK_BADARG signal expiry <value>: not a whole number of ms.
local err = redlock_bad_ms(ARGV[2], 'signal expiry') or redlock_wrong_type(KEYS[1], 'string') or redlock_wrong_type(KEYS[2], 'list')
if err then return err end
if redis.call('get', KEYS[1]) ~= ARGV[1] then return nil end
redis.call('del', KEYS[2])
redis.call('lpush', KEYS[2], 1)
redis.call('pexpire', KEYS[2], ARGV[2])
redis.call('del', KEYS[1])
return 1
