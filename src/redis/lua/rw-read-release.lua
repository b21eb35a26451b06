-- rw-read-release.lua: Redisson RReadWriteLock.readLock() unlock (docs/redisson-protocol.md §2.3).
-- Drops the caller's highest hold and its timeout key. If other fields remain, the hash TTL becomes
-- the longest remaining PTTL over every holder's timeout keys (`<keyPrefix>:<field>:rwlock_timeout:<i>`,
-- built here from KEYS[4] so they share the lock's hash tag and Cluster slot); when none is left
-- alive the lock is deleted, zombie readers included, unless a writer still holds it.
-- KEYS[1] lock hash   KEYS[2] channel `redisson_rwlock:{name}`
-- KEYS[3] the caller's timeout prefix `{name}:<holder>:rwlock_timeout`   KEYS[4] key prefix `{name}`
-- ARGV[1] holder `<uuid>:<thread>`   ARGV[2] 'publish' | 'spublish'
-- Returns nil not held by the caller (also for a missing lock, which still publishes 0 like
--         Redisson >= 3.44), 0 released this hold but others still hold the lock, 1 lock deleted
--         (publishes 0).
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND plain: not a read-write lock; nothing written.
local err = redlock_wrong_hash(KEYS[1], true)
if err then return err end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redlock_publish(ARGV[2], KEYS[2], 0)
  return nil
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return nil
end
local counter = redis.call('hincrby', KEYS[1], ARGV[1], -1)
if counter == 0 then redis.call('hdel', KEYS[1], ARGV[1]) end
redis.call('del', KEYS[3] .. ':' .. (counter + 1))

if redis.call('hlen', KEYS[1]) > 1 then
  local max_remaining = -3
  local fields = redis.call('hgetall', KEYS[1])
  for i = 1, #fields, 2 do
    local holds = tonumber(fields[i + 1])
    if holds then
      for n = holds, 1, -1 do
        local remaining = redis.call('pttl', KEYS[4] .. ':' .. fields[i] .. ':rwlock_timeout:' .. n)
        max_remaining = math.max(max_remaining, remaining)
      end
    end
  end
  if max_remaining > 0 then
    redis.call('pexpire', KEYS[1], max_remaining)
    return 0
  end
  if mode == 'write' then return 0 end
end
redis.call('del', KEYS[1])
redlock_publish(ARGV[2], KEYS[2], 0)
return 1
