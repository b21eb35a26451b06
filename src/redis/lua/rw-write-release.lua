-- rw-write-release.lua: Redisson RReadWriteLock.writeLock() unlock (redisson-protocol.md §2.3).
-- A remaining re-entrant hold gets the lease re-applied. The last write hold either deletes the
-- lock and publishes 1 (wake every waiter: readers may all proceed), or, when the same owner still
-- holds read holds, downgrades the lock to mode=read without publishing (nobody new can enter yet
-- except other readers, who never wait on a read-mode lock).
-- KEYS[1] lock hash   KEYS[2] channel `redisson_rwlock:{name}`
-- ARGV[1] lease ms re-applied to a remaining hold   ARGV[2] write holder `<uuid>:<thread>:write`
-- ARGV[3] 'publish' | 'spublish'
-- Returns nil not the writer (also for a missing lock, which still publishes 1 like Redisson >= 3.44),
--         0 still held (count decremented), 1 write lock released (deleted, or downgraded to read).
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND plain: not a read-write lock; nothing written.
-- Errors  REDLOCK_BADARG lease <value>: not a whole number of ms in 1..24 days; nothing written.
local err = redlock_bad_ms(ARGV[1], 'lease') or redlock_wrong_hash(KEYS[1], true)
if err then return err end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redlock_publish(ARGV[3], KEYS[2], 1)
  return nil
end
if mode ~= 'write' or redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[2], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 0
end
redis.call('hdel', KEYS[1], ARGV[2])
if redis.call('hlen', KEYS[1]) == 1 then
  redis.call('del', KEYS[1])
  redlock_publish(ARGV[3], KEYS[2], 1)
else
  redis.call('hset', KEYS[1], 'mode', 'read')
end
return 1
