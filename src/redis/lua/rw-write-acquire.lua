-- rw-write-acquire.lua: Redisson RReadWriteLock.writeLock() acquire (redisson-protocol.md §2.3).
-- Free: mode=write. Re-entry by the same writer ADDS the lease to the remaining TTL (unlike RLock,
-- which resets it). A holder of only the read lock cannot upgrade.
-- KEYS[1] lock hash   ARGV[1] lease ms   ARGV[2] write holder `<uuid>:<thread>:write`
-- Returns {1, writeHoldCount, -1} acquired
--         {0, pttl, field1, value1, ...} refused (all hash fields, `mode` included: the TS side drops it)
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND plain: not a read-write lock; nothing written.
-- Errors  REDLOCK_BADARG lease <value>: not a whole number of ms in 1..24 days; nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease') or redlock_wrong_hash(KEYS[1], true)
if err then return err end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('hset', KEYS[1], 'mode', 'write', ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return { 1, 1, -1 }
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  local count = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], redis.call('pttl', KEYS[1]) + tonumber(ARGV[1]))
  return { 1, count, -1 }
end
local result = { 0, redis.call('pttl', KEYS[1]) }
for _, v in ipairs(redlock_holders(KEYS[1])) do result[#result + 1] = v end
return result
