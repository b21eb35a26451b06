-- multi-acquire.lua: Redisson's group multi-lock, getMultiLock(group, values) (docs/lock-formats.md,
-- "Redisson's newer objects"; RedissonFasterMultiLock.tryLockInnerAsync at redisson-3.52.0). One
-- hash per group; per value: field <value> = owner, <value>:<owner>:expire_time = epoch ms,
-- <value>:<owner>:lock_count = holds. A value is taken unless another owner's expiry on it is
-- still ahead; then nothing is written. Values of one group held by others are no obstacle.
-- KEYS[1] group hash
-- ARGV[1] lease ms   ARGV[2] now, epoch ms (the client's clock, as Redisson's)   ARGV[3] owner
-- ARGV[4..] values, as stored (Redisson's hashed field names)
-- Returns {1, holds} acquired (holds: the most any of these values now has)
--         {0, ms left, owner, '1'} refused: the other owner whose hold on a value ends last, and when
-- Errors  REDLOCK_WRONGTYPE <type>; REDLOCK_BADARG lease / now: nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease') or redlock_bad_now(ARGV[2]) or redlock_wrong_type(KEYS[1], 'hash')
if err then return err end
local lease, now, owner = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local existed = redis.call('exists', KEYS[1]) == 1
local latest, blocker = -1, nil
for i = 4, #ARGV do
  local holder = redis.call('hget', KEYS[1], ARGV[i])
  if holder and holder ~= owner then
    local ends = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time'))
    if ends and ends > now and ends > latest then latest, blocker = ends, holder end
  end
end
if blocker then return { 0, latest - now, blocker, '1' } end
local holds = 0
for i = 4, #ARGV do
  local prefix = ARGV[i] .. ':' .. owner
  redis.call('hset', KEYS[1], ARGV[i], owner)
  local ends = tonumber(redis.call('hget', KEYS[1], prefix .. ':expire_time'))
  if not ends or ends < now + lease then redis.call('hset', KEYS[1], prefix .. ':expire_time', now + lease) end
  holds = math.max(holds, redis.call('hincrby', KEYS[1], prefix .. ':lock_count', 1))
end
-- The group lives as long as its longest lease: raised, never lowered.
local pttl = redis.call('pttl', KEYS[1])
if not existed or (pttl > 0 and lease > pttl) then redis.call('pexpire', KEYS[1], lease) end
return { 1, holds }
