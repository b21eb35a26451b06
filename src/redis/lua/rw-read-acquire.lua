-- rw-read-acquire.lua: Redisson RReadWriteLock.readLock() acquire (redisson-protocol.md §2.3).
-- Free: mode=read. Read mode, or write mode held by the caller's own writer: one more hold. Every
-- hold gets its own timeout key `<prefix>:<n>` with the lease as PX, because the read release later
-- recomputes the hash TTL from them. The hash TTL only grows (max of PTTL and lease, Redisson >= 3.11.1).
-- There is no writer preference: any reader joins an existing read mode.
-- KEYS[1] lock hash   KEYS[2] the caller's timeout prefix `{name}:<uuid>:<thread>:rwlock_timeout`
-- ARGV[1] lease ms   ARGV[2] holder `<uuid>:<thread>`   ARGV[3] the caller's write holder `<uuid>:<thread>:write`
-- Returns {1, readHoldCount, -1} acquired
--         {0, pttl, field1, value1, ...} refused (all hash fields, `mode` included: the TS side drops it)
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND plain: not a read-write lock; nothing written.
-- Errors  REDLOCK_BADARG lease <value>: not a whole number of ms in 1..24 days; nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease') or redlock_wrong_hash(KEYS[1], true)
if err then return err end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('hset', KEYS[1], 'mode', 'read', ARGV[2], 1)
  redis.call('set', KEYS[2] .. ':1', 1, 'px', ARGV[1])
  redis.call('pexpire', KEYS[1], ARGV[1])
  return { 1, 1, -1 }
end
if mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
  local count = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('set', KEYS[2] .. ':' .. count, 1, 'px', ARGV[1])
  redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
  return { 1, count, -1 }
end
local result = { 0, redis.call('pttl', KEYS[1]) }
for _, v in ipairs(redlock_holders(KEYS[1])) do result[#result + 1] = v end
return result
