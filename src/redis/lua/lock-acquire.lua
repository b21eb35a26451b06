-- lock-acquire.lua: Redisson RLock / RSpinLock / RFencedLock acquire (redisson-protocol.md §2.1, §2.4, §2.5).
-- Free or already ours: HINCRBY holder, PEXPIRE lease (re-entry resets the TTL to the new lease),
-- and for fenced locks INCR the token counter on every acquisition, re-entry included.
-- KEYS[1] lock hash
-- KEYS[2] fencing token counter, or the lock hash again when not fenced (ARGV[3] = '0')
-- KEYS[3] fair queue `redisson_lock_queue:{name}`: while it exists the name is a fair lock's
-- ARGV[1] lease ms   ARGV[2] holder `<uuid>:<thread>`   ARGV[3] '1' fenced, '0' not
-- Returns {1, holdCount, token} acquired (token -1 when not fenced)
--         {0, pttl, field1, count1, ...} held by others (pttl -1 = key without TTL)
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND rw|fair: the key is not a plain lock hash;
--         REDLOCK_BADARG lease <value>: not a whole number of ms in 1..24 days. Nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease')
if err then return err end
local type
err, type = redlock_wrong_plain(KEYS[1], KEYS[3])
if err then return err end
if type == 'none' or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  local token = -1
  if ARGV[3] == '1' then
    local terr = redlock_wrong_type(KEYS[2], 'string')
    if terr then return terr end
    token = redis.call('incr', KEYS[2])
  end
  local count = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return { 1, count, token }
end
local result = { 0, redis.call('pttl', KEYS[1]) }
for _, v in ipairs(redlock_holders(KEYS[1])) do result[#result + 1] = v end
return result
