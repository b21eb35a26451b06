-- bsm-obtain.lua: bsm/redislock's obtain (docs/lock-formats.md, "Python and Go libraries"): every
-- key gets the value only if none exists (MSETNX); when some exist, and every key already starts
-- with the caller's token, the caller re-obtains them all (MSET). Then each key gets the TTL.
-- KEYS   the lock's keys (ObtainMulti locks several with one value)
-- ARGV[1] value: the token, then the caller's metadata   ARGV[2] token length   ARGV[3] lease ms
-- Returns {1, 1, -1} acquired (or re-obtained)
--         {0, pttl, value, '1'} refused: the first key held by another token, its PTTL and value
--         {0, 0} refused with no key held by another (one of them is missing while the others hold
--         this token: bsm refuses that too); a retry may take it.
-- Errors  REDLOCK_WRONGTYPE <type>: a key is not a string; REDLOCK_BADARG lease / token length.
local err = redlock_bad_ms(ARGV[3], 'lease') or redlock_bad_int(ARGV[2], 'token length', 1, 4096)
if err then return err end
local values = {}
for _, key in ipairs(KEYS) do
  values[#values + 1] = key
  values[#values + 1] = ARGV[1]
end
if redis.call('msetnx', unpack(values)) == 0 then
  -- MSETNX writes nothing when any key exists, so the type guard costs nothing on a free lock.
  for _, key in ipairs(KEYS) do
    err = redlock_wrong_type(key, 'string')
    if err then return err end
  end
  local length = tonumber(ARGV[2])
  local token = string.sub(ARGV[1], 1, length)
  local refused = false
  for _, key in ipairs(KEYS) do
    if redis.call('getrange', key, 0, length - 1) ~= token then
      local value = redis.call('get', key)
      if value then return { 0, redis.call('pttl', key), value, '1' } end
      refused = true
    end
  end
  if refused then return { 0, 0 } end
  redis.call('mset', unpack(values))
end
for _, key in ipairs(KEYS) do
  redis.call('pexpire', key, ARGV[3])
end
return { 1, 1, -1 }
