-- pyrl-force-unlock.lua: break-glass delete of a python-redis-lock lock whoever holds it, waking
-- its waiters as the library's own reset() does: one short-lived element in the wake-up list.
-- KEYS[1] lock key (`lock:<name>`)   KEYS[2] wake-up list (`lock-signal:<name>`)
-- ARGV[1] how long the wake-up element lives, ms
-- Returns 1 deleted, 0 there was no lock (then nothing is pushed).
-- Errors  REDLOCK_WRONGTYPE <type>: the lock or the list has another type; nothing changed.
local err = redlock_bad_ms(ARGV[1], 'signal expiry') or redlock_wrong_type(KEYS[1], 'string') or redlock_wrong_type(KEYS[2], 'list')
if err then return err end
if redis.call('exists', KEYS[1]) == 0 then return 0 end
redis.call('del', KEYS[2])
redis.call('lpush', KEYS[2], 1)
redis.call('pexpire', KEYS[2], ARGV[1])
return redis.call('del', KEYS[1])
