-- fair-acquire.lua: Redisson RFairLock acquire, both of its variants (redisson-protocol.md §2.2).
-- ARGV[5] = '1': the queuing EVAL_LONG variant of lock() / tryLock(wait): a refused caller joins the
--   queue (RPUSH + ZADD of an absolute deadline) and is told its estimated wait.
-- ARGV[5] = '0': the EVAL_NULL_BOOLEAN variant of tryLock() without a wait: refused, nothing queued.
-- Both take the lock only when it is free and nobody is queued ahead of the caller; the winner's
-- acquisition moves every remaining deadline up by `wait` (Redisson's timeout-drift correction).
-- KEYS[1] lock hash   KEYS[2] queue `redisson_lock_queue:{name}`   KEYS[3] deadlines `redisson_lock_timeout:{name}`
-- ARGV[1] lease ms   ARGV[2] holder `<uuid>:<thread>`   ARGV[3] wait ms (the caller's waitTime, or
--         threadWaitTime)   ARGV[4] now: the client's epoch ms   ARGV[5] '1' queue | '0' never queue
-- Returns {1, holdCount, -1} acquired (re-entry resets the TTL to the new lease)
--         {0, waitMs, field1, count1, ...} refused, waitMs being Redisson's reply: already queued
--           max(0, PTTL); newly queued the predecessor's deadline - now (or PTTL with no predecessor);
--           not queuing PTTL, or 0 when the lock is free but others are queued first.
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND rw: a key is not what a fair lock uses; nothing written.
--         REDLOCK_BADARG lease|wait|now <value>: a number out of range; nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease') or redlock_bad_ms(ARGV[3], 'wait', 0) or redlock_bad_now(ARGV[4])
  or redlock_wrong_hash(KEYS[1], false) or redlock_fair_guard(KEYS[2], KEYS[3])
if err then return err end
local lock, queue, timeouts = KEYS[1], KEYS[2], KEYS[3]
local me, wait, now = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
redlock_fair_purge(queue, timeouts, now)

if redis.call('exists', lock) == 0
  and (redis.call('exists', queue) == 0 or redis.call('lindex', queue, 0) == me) then
  redis.call('lpop', queue)
  redis.call('zrem', timeouts, me)
  for _, waiter in ipairs(redis.call('zrange', timeouts, 0, -1)) do
    redis.call('zincrby', timeouts, -wait, waiter)
  end
  redis.call('hset', lock, me, 1)
  redis.call('pexpire', lock, ARGV[1])
  return { 1, 1, -1 }
end

if redis.call('hexists', lock, me) == 1 then
  local count = redis.call('hincrby', lock, me, 1)
  redis.call('pexpire', lock, ARGV[1])
  return { 1, count, -1 }
end

local function refused(wait_ms)
  local result = { 0, wait_ms }
  for _, v in ipairs(redlock_holders(lock)) do result[#result + 1] = v end
  return result
end

if ARGV[5] ~= '1' then
  -- Free but someone else is queued first: report 0 rather than -2 (no key), which reads as "no TTL".
  local pttl = redis.call('pttl', lock)
  return refused(pttl == -2 and 0 or pttl)
end

if redis.call('zscore', timeouts, me) then
  return refused(math.max(0, redis.call('pttl', lock)))
end

-- My turn comes when my predecessor's does plus its allowance; without a (scored) predecessor,
-- when the lease runs out.
local ttl
local last = redis.call('lindex', queue, -1)
local last_deadline = last and last ~= me and redis.call('zscore', timeouts, last)
if last_deadline then
  ttl = tonumber(last_deadline) - now
else
  ttl = redis.call('pttl', lock)
end
if redis.call('zadd', timeouts, ttl + wait + now, me) == 1 then
  redis.call('rpush', queue, me)
end
return refused(ttl)
