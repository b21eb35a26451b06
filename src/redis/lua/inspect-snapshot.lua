#!lua flags=no-writes
-- inspect-snapshot.lua: one consistent, read-only snapshot of a key and its companion keys, for
-- inspect, ls, --watch and doctor. The no-writes flag above makes Redis itself refuse any write or
-- PUBLISH from this script (it also lets it run on replicas and while Redis is out of memory).
-- It only gathers; src/core/decode decides what the data means (docs/redisson-protocol.md §4).
-- KEYS[1] the key   KEYS[2] fair queue `redisson_lock_queue:{name}`   KEYS[3] fair deadlines
-- `redisson_lock_timeout:{name}`   KEYS[4] fencing counter `redisson_lock_token:{name}`
-- KEYS[5] expirable-semaphore permits `{name}:timeout`   KEYS[6] `{name}`, the prefix of read-hold
-- keys `{name}:<holder>:rwlock_timeout:<n>`: those are built here from the reader fields, as
-- Redisson does, so they keep the hash tag; KEYS[6] itself is never read.
-- KEYS[7] rate limiter permits left `{name}:value`   KEYS[8] its grants `{name}:permits`; a
-- PER_CLIENT limiter's pairs are these names with `:<client id>` after, built here from ARGV[9..]
-- ARGV[1] cap: most entries read from one hash, list or zset (a larger hash gives a sample)
-- ARGV[2] read-hold indexes probed past each reader's count, to find orphan timeout keys
-- ARGV[3] '1' read KEYS[2..6]; '0' they are in another Cluster slot (then copies of KEYS[1])
-- ARGV[4] lock channel   ARGV[5] rw channel   ARGV[6] semaphore channel   ARGV[7] latch channel
-- ARGV[8] '1' count SSUBSCRIBE subscribers too (Cluster), '0' not
-- ARGV[9..] client ids of a PER_CLIENT rate limiter whose pairs to read (found by SCAN beforehand)
-- Returns {type, pttl, {sec, usec}, size, body, queue, deadlines, counter, readers, permits, subscribers, limiter}
--   size        HLEN / STRLEN / LLEN / ZCARD / SCARD / XLEN of the key, 0 when missing
--   body        hash {field, value, ...}: all of it, or for a hash of more than 64 fields that
--               does not look like a lock (or has more than cap) an HSCAN sample plus `mode`;
--               string {value} when STRLEN <= 512; `semaphore:*` zset {member, score, ...} (first
--               cap); else {}
--   queue       {llen, entry, ...}: fair wait queue, first cap entries ({0} when absent)
--   deadlines   {zcard, member, score, ...}: fair deadline zset, first cap entries ({0} when absent)
--   counter     {} or {value}: fencing counter
--   readers     rw hashes: per reader field (and writer's base name) {holder, count, index, pttl, ...}
--               with only the timeout keys that exist among indexes 1 .. min(count, cap) + ARGV[2]
--   permits     {zcard, pttl, hexId, score, ...}: expirable-semaphore zset, ids hex-encoded because
--               Redisson >= 3.17 stores raw bytes ({0, -2} when absent)
--   subscribers subscriber counts of ARGV[4..7] (0 where the key's type has no such channel),
--               then of each listed queue entry's own channel `<lock channel>:<entry>`
--   limiter     a hash with `rate` and `interval` fields: per state {client ('' shared, then each
--               ARGV[9..]), value ('' when absent), value pttl, grant zcard, zset pttl, hexMember,
--               score, ... (first cap)}; {} for any other key
local cap = tonumber(ARGV[1])
local key = KEYS[1]
local companions = ARGV[3] == '1'

local function type_of(k) return redis.call('type', k)['ok'] end

local function hex(s)
  return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end))
end

-- A Redisson holder field starts with the client's UUID.
local HOLDER = '^%x%x%x%x%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x:'

local t = type_of(key)
local size, body, complete = 0, {}, true
if t == 'hash' then
  size = redis.call('hlen', key)
  if size <= 64 then
    body = redis.call('hgetall', key)
  else
    -- Lock hashes are small; a big hash is application data far more often, so it is read whole
    -- only when a sample looks like a lock (ls runs this over every hash it meets).
    body = redis.call('hscan', key, 0, 'COUNT', 16)[2]
    local mode = redis.call('hget', key, 'mode')
    if (mode or (body[1] and string.find(body[1], HOLDER))) and size <= cap then
      body = redis.call('hgetall', key)
    else
      complete = false
      local sampled = false
      for i = 1, #body, 2 do sampled = sampled or body[i] == 'mode' end
      if mode and not sampled then body[#body + 1] = 'mode'; body[#body + 1] = mode end
    end
  end
elseif t == 'string' then
  size = redis.call('strlen', key)
  if size <= 512 then body = { redis.call('get', key) } end
elseif t == 'zset' then
  size = redis.call('zcard', key)
  -- Only redis-semaphore's zsets are locks, and it always names them `semaphore:<key>`.
  if string.sub(key, 1, 10) == 'semaphore:' then body = redis.call('zrange', key, 0, cap - 1, 'WITHSCORES') end
elseif t == 'list' then size = redis.call('llen', key)
elseif t == 'set' then size = redis.call('scard', key)
elseif t == 'stream' then size = redis.call('xlen', key)
end

-- Hash locks (and a free fair or fenced lock, whose hash is gone) have these companions.
local queue, deadlines, counter = { 0 }, { 0 }, {}
if companions and (t == 'hash' or t == 'none') then
  if type_of(KEYS[2]) == 'list' then
    queue = { redis.call('llen', KEYS[2]) }
    for _, entry in ipairs(redis.call('lrange', KEYS[2], 0, cap - 1)) do queue[#queue + 1] = entry end
  end
  if type_of(KEYS[3]) == 'zset' then
    deadlines = { redis.call('zcard', KEYS[3]) }
    for _, v in ipairs(redis.call('zrange', KEYS[3], 0, cap - 1, 'WITHSCORES')) do deadlines[#deadlines + 1] = v end
  end
  if type_of(KEYS[4]) == 'string' then counter = { redis.call('get', KEYS[4]) } end
end

-- Read-hold timeout keys of every holder named in a rw hash. Keys of holders named nowhere
-- cannot be found without SCAN, which has no place in a script; doctor scans for those.
local readers = {}
local rw = false
for i = 1, #body, 2 do rw = rw or (t == 'hash' and body[i] == 'mode') end
if companions and rw and complete then
  local counts, order = {}, {}
  for i = 1, #body, 2 do
    local field, n = body[i], tonumber(body[i + 1]) or 0
    if field ~= 'mode' then
      if string.sub(field, -6) == ':write' then field, n = string.sub(field, 1, -7), 0 end
      if counts[field] == nil then order[#order + 1] = field; counts[field] = n
      elseif n > counts[field] then counts[field] = n end
    end
  end
  local extra = tonumber(ARGV[2])
  for _, holder in ipairs(order) do
    local prefix = KEYS[6] .. ':' .. holder .. ':rwlock_timeout:'
    local row = { holder, counts[holder] }
    for i = 1, math.min(counts[holder], cap) + extra do
      local ttl = redis.call('pttl', prefix .. i)
      if ttl ~= -2 then row[#row + 1] = i; row[#row + 1] = ttl end
    end
    readers[#readers + 1] = row
  end
end

local permits = { 0, -2 }
if companions and (t == 'string' or t == 'none') and type_of(KEYS[5]) == 'zset' then
  permits = { redis.call('zcard', KEYS[5]), redis.call('pttl', KEYS[5]) }
  local entries = redis.call('zrange', KEYS[5], 0, cap - 1, 'WITHSCORES')
  for i = 1, #entries, 2 do
    permits[#permits + 1] = hex(entries[i]); permits[#permits + 1] = entries[i + 1]
  end
end

-- RRateLimiter: the shared state, then each client's asked for; members are raw bytes, so hex.
local limiter = {}
local function limiter_state(client, value_key, grants_key)
  local row = { client, '', redis.call('pttl', value_key), 0, -2 }
  if type_of(value_key) == 'string' then row[2] = redis.call('get', value_key) end
  if type_of(grants_key) == 'zset' then
    row[4], row[5] = redis.call('zcard', grants_key), redis.call('pttl', grants_key)
    local entries = redis.call('zrange', grants_key, 0, cap - 1, 'WITHSCORES')
    for i = 1, #entries, 2 do row[#row + 1] = hex(entries[i]); row[#row + 1] = entries[i + 1] end
  end
  limiter[#limiter + 1] = row
end
if companions and t == 'hash' and redis.call('hexists', key, 'rate') == 1 and redis.call('hexists', key, 'interval') == 1 then
  limiter_state('', KEYS[7], KEYS[8])
  for i = 9, #ARGV do limiter_state(ARGV[i], KEYS[7] .. ':' .. ARGV[i], KEYS[8] .. ':' .. ARGV[i]) end
end

-- Waiting clients, only on the channels this type of key can have (a token lock has none):
-- Redisson subscribes with SUBSCRIBE, or SSUBSCRIBE on a Redis 7 Cluster (ARGV[8] = '1').
-- Channels go in chunks: Lua's unpack() cannot spread thousands of arguments at once.
local subscribers, channels, slots = { 0, 0, 0, 0 }, {}, {}
local function want(slot, channel) channels[#channels + 1] = channel; slots[#slots + 1] = slot end
if t == 'hash' or t == 'none' then want(1, ARGV[4]); want(2, ARGV[5])
elseif t == 'string' and body[1] and string.find(body[1], '^%-?%d+$') then want(3, ARGV[6]); want(4, ARGV[7]) end
for i = 2, #queue do want(i + 3, ARGV[4] .. ':' .. queue[i]) end
for from = 1, #channels, 500 do
  local chunk = { unpack(channels, from, math.min(from + 499, #channels)) }
  local plain = redis.call('pubsub', 'numsub', unpack(chunk))
  local sharded = ARGV[8] == '1' and redis.call('pubsub', 'shardnumsub', unpack(chunk))
  for j = 1, #chunk do subscribers[slots[from + j - 1]] = plain[2 * j] + (sharded and sharded[2 * j] or 0) end
end

return { t, redis.call('pttl', key), redis.call('time'), size, body, queue, deadlines, counter, readers, permits, subscribers, limiter }
