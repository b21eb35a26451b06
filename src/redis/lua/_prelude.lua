-- _prelude.lua: helpers that scripts.ts prepends to every script in this folder.
-- A lock script must never change a key that holds something else: these guards turn a wrong
-- type, or a hash of the other Redisson lock family, into an error reply that the TS side maps
-- to a one-line usage error (exit 2), before anything is written.

-- Error reply 'REDLOCK_WRONGTYPE <type>' if KEYS[i] exists with a type other than `want`.
local function redlock_wrong_type(key, want)
  local t = redis.call('type', key)['ok']
  if t ~= 'none' and t ~= want then
    return redis.error_reply('REDLOCK_WRONGTYPE ' .. t)
  end
  return false
end

-- For hash locks: 'REDLOCK_WRONGKIND rw' when a plain-lock script meets a read-write hash
-- (field `mode`), 'REDLOCK_WRONGKIND plain' when a read-write script meets a plain lock hash.
-- Returns err-or-false and the key's type, so callers need no second EXISTS: one TYPE (+ one
-- HEXISTS when the hash exists) is all the guard costs inside the script.
local function redlock_wrong_hash(key, want_rw)
  local t = redis.call('type', key)['ok']
  if t == 'none' then return false, t end
  if t ~= 'hash' then return redis.error_reply('REDLOCK_WRONGTYPE ' .. t), t end
  local is_rw = redis.call('hexists', key, 'mode') == 1
  if is_rw and not want_rw then return redis.error_reply('REDLOCK_WRONGKIND rw'), t end
  if want_rw and not is_rw then return redis.error_reply('REDLOCK_WRONGKIND plain'), t end
  return false, t
end

-- The plain lock scripts (RLock, spin, fenced) on a fair lock's name: its waiters queue in
-- `redisson_lock_queue:{name}` and listen on their own channels, so a plain acquire would jump the
-- queue and a plain release would wake nobody. 'REDLOCK_WRONGKIND fair' while that queue exists.
-- Returns err-or-false and the key's type, like redlock_wrong_hash.
local function redlock_wrong_plain(key, queue)
  local err, t = redlock_wrong_hash(key, false)
  if err then return err, t end
  if redis.call('exists', queue) == 1 then return redis.error_reply('REDLOCK_WRONGKIND fair'), t end
  return false, t
end

-- Numeric ARGV are checked before a script's first write: Redis does not roll a script back, so
-- an HSET followed by a failing PEXPIRE (a lease too large) would leave a lock that never expires.
-- The ceiling is MAX_DURATION_MS of src/core/duration.ts (24 days); epoch-ms clocks get 2^53.
local REDLOCK_MAX_MS = 2073600000
local REDLOCK_MAX_EPOCH_MS = 9007199254740991

-- Error reply 'REDLOCK_BADARG <name> <value>' unless `value` is a whole number in min..max.
local function redlock_bad_int(value, name, min, max)
  local n = tonumber(value)
  if n == nil or n ~= math.floor(n) or n < min or n > max then
    return redis.error_reply('REDLOCK_BADARG ' .. name .. ' ' .. tostring(value))
  end
  return false
end

-- A lease or wait in ms: 1 .. 24 days (`min` 0 for a wait that may be zero).
local function redlock_bad_ms(value, name, min)
  return redlock_bad_int(value, name, min or 1, REDLOCK_MAX_MS)
end

-- A client clock reading (epoch ms).
local function redlock_bad_now(value)
  return redlock_bad_int(value, 'now', 0, REDLOCK_MAX_EPOCH_MS)
end

-- The hash's fields and values as a flat list (holder, count, ...), for "held by" messages.
local function redlock_holders(key)
  local t = redis.call('type', key)['ok']
  if t == 'hash' then return redis.call('hgetall', key) end
  if t == 'string' then return { redis.call('get', key), '1' } end
  return {}
end

-- Publishes unless the caller passed '' (spin locks never publish). ARGV carries 'publish' or 'spublish'.
local function redlock_publish(cmd, channel, message)
  if cmd ~= '' then redis.call(cmd, channel, message) end
end

-- Redisson RFairLock helpers (docs/redisson-protocol.md §2.2), shared by the fair-*.lua scripts.
-- A Redis error halfway through a script keeps the writes made before it, so the queue LIST and
-- deadline ZSET are type-checked up front, before any fair script writes anything.
local function redlock_fair_guard(queue, timeouts)
  return redlock_wrong_type(queue, 'list') or redlock_wrong_type(timeouts, 'zset')
end

-- Redisson's stale-waiter purge, the prefix of every fair script: while the queue head's deadline
-- (ZSET score, epoch ms) is <= now, drop it from both keys. Only expired entries at the head go,
-- and no other deadline changes: the next waiter keeps its full allowance from here.
local function redlock_fair_purge(queue, timeouts, now)
  while true do
    local head = redis.call('lindex', queue, 0)
    if not head then return end
    local deadline = redis.call('zscore', timeouts, head)
    if not deadline or tonumber(deadline) > now then return end
    redis.call('zrem', timeouts, head)
    redis.call('lpop', queue)
  end
end

-- Wakes only the queue head, on its own channel `<channelBase>:<uuid>:<thread>`, built here as
-- Redisson does (same hash tag as the lock, so it is in the lock's Cluster slot).
local function redlock_fair_wake_head(queue, channel_base, cmd)
  local head = redis.call('lindex', queue, 0)
  if head then redlock_publish(cmd, channel_base .. ':' .. head, 0) end
end

-- Redisson group multi-lock (multi-*.lua): the values a script acts on, ARGV[from..], or when none
-- are given every value field of the group whose holder is `owner` (the others' values and the
-- expire_time / lock_count fields never hold an owner id).
local function redlock_multi_values(group, owner, argv, from)
  local values = {}
  for i = from, #argv do values[#values + 1] = argv[i] end
  if #values > 0 then return values end
  local flat = redis.call('hgetall', group)
  for i = 1, #flat, 2 do
    if flat[i + 1] == owner then values[#values + 1] = flat[i] end
  end
  return values
end
