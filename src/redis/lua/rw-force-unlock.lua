-- rw-force-unlock.lua: Redisson readLock().forceUnlock() / writeLock().forceUnlock() (docs/redisson-protocol.md §2.3).
-- Deletes the lock only when it is in the caller's mode: a read force-unlock leaves a write-mode
-- lock alone and vice versa. Publishes 0 (read) or 1 (write, wakes every waiter), as Redisson does.
-- Timeout keys are not deleted (Redisson does not either; they expire on their own).
-- KEYS[1] lock hash   KEYS[2] channel `redisson_rwlock:{name}`
-- ARGV[1] 'read' | 'write'   ARGV[2] 'publish' | 'spublish'
-- Returns 1 deleted, 0 no lock in that mode.
-- Errors  REDLOCK_WRONGTYPE <type> / REDLOCK_WRONGKIND plain: not a read-write lock; nothing written.
local err = redlock_wrong_hash(KEYS[1], true)
if err then return err end
if redis.call('hget', KEYS[1], 'mode') ~= ARGV[1] then return 0 end
redis.call('del', KEYS[1])
redlock_publish(ARGV[2], KEYS[2], ARGV[1] == 'write' and 1 or 0)
return 1
