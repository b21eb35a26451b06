-- lock-renew.lua: watchdog renewal of a hash lock held by one holder (docs/redisson-protocol.md §2.1 LockTask).
-- Used for RLock, spin, fenced, fair (only the hash is renewed) and the write lock (holder `...:write`).
-- KEYS[1] lock hash   ARGV[1] lease ms   ARGV[2] holder field
-- Returns 1 renewed, 0 the caller holds no hold (lock lost: renewal must stop).
if redis.call('type', KEYS[1])['ok'] == 'hash' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 1
end
return 0
