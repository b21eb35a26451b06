-- lock-peek.lua: read-only snapshot of one lock key, for "held by ..." messages and kind detection.
-- KEYS[1] lock key   KEYS[2] fair queue `redisson_lock_queue:{name}`   KEYS[3] fencing counter
-- `redisson_lock_token:{name}` (all in the lock's slot)
-- Returns {type, pttl, fairQueueLength, fencedCounterExists, field1, value1, ...}: hash fields and
--         values, or for a string its value and '1'; nothing more for other types. Writes nothing.
local t = redis.call('type', KEYS[1])['ok']
local queue = 0
if redis.call('type', KEYS[2])['ok'] == 'list' then queue = redis.call('llen', KEYS[2]) end
local result = { t, redis.call('pttl', KEYS[1]), queue, redis.call('exists', KEYS[3]) }
for _, v in ipairs(redlock_holders(KEYS[1])) do result[#result + 1] = v end
return result
