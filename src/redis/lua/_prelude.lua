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
local function redlock_wrong_hash(key, want_rw)
  local err = redlock_wrong_type(key, 'hash')
  if err then return err end
  if redis.call('exists', key) == 0 then return false end
  local is_rw = redis.call('hexists', key, 'mode') == 1
  if is_rw and not want_rw then return redis.error_reply('REDLOCK_WRONGKIND rw') end
  if want_rw and not is_rw then return redis.error_reply('REDLOCK_WRONGKIND plain') end
  return false
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
