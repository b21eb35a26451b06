-- fair-acquire-failed.lua: Redisson RFairLock acquireFailed (redisson-protocol.md §2.2): a waiter
-- that gives up (wait over, interrupted) leaves the queue, and everyone behind it moves one
-- allowance closer (deadline - wait), as if it had never queued.
-- Unlike Redisson's script this one starts with the stale-head purge too: if my own deadline has
-- already passed while I am the head, I am purged without shifting the others, instead of
-- shifting my successor's deadline into the past, where the next purge would drop a live waiter.
-- KEYS[1] queue `redisson_lock_queue:{name}`   KEYS[2] deadlines `redisson_lock_timeout:{name}`
-- ARGV[1] holder `<uuid>:<thread>`   ARGV[2] wait ms used when it queued   ARGV[3] now: client epoch ms
-- Returns 1 the holder was queued and has left, 0 it was not queued (nothing else changed but the purge).
-- Errors  REDLOCK_WRONGTYPE <type>: the queue or deadline key holds something else; nothing written.
--         REDLOCK_BADARG wait|now <value>: a number out of range; nothing written.
local err = redlock_bad_ms(ARGV[2], 'wait', 0) or redlock_bad_now(ARGV[3]) or redlock_fair_guard(KEYS[1], KEYS[2])
if err then return err end
local queue, timeouts, me = KEYS[1], KEYS[2], ARGV[1]
redlock_fair_purge(queue, timeouts, tonumber(ARGV[3]))
local behind_me = false
for _, waiter in ipairs(redis.call('lrange', queue, 0, -1)) do
  if behind_me then
    redis.call('zincrby', timeouts, -tonumber(ARGV[2]), waiter)
  elseif waiter == me then
    behind_me = true
  end
end
local removed = redis.call('zrem', timeouts, me) + redis.call('lrem', queue, 0, me)
return removed > 0 and 1 or 0
