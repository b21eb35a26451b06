-- rw-read-renew.lua: watchdog renewal of one read holder (redisson-protocol.md §2.3, Redisson >= 4.4.0 ReadLockTask).
-- Renews the caller's own timeout keys 1..count and the hash. Other holders' timeout keys are left
-- alone on purpose: a reader whose client died must expire (zombie reader), not be kept alive by us.
-- KEYS[1] lock hash   KEYS[2] the caller's timeout prefix `{name}:<holder>:rwlock_timeout`
-- ARGV[1] lease ms   ARGV[2] holder `<uuid>:<thread>`
-- Returns 1 renewed, 0 the caller holds no read hold (lock lost: renewal must stop).
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND plain / REDLOCK_BADARG lease: nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease') or redlock_wrong_hash(KEYS[1], true)
if err then return err end
if redis.call('exists', KEYS[1]) == 0 then return 0 end
local count = tonumber(redis.call('hget', KEYS[1], ARGV[2]))
if count == nil or count <= 0 then return 0 end
for n = count, 1, -1 do
  redis.call('pexpire', KEYS[2] .. ':' .. n, ARGV[1])
end
redis.call('pexpire', KEYS[1], ARGV[1])
return 1
