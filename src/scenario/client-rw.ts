import { braced, prefixName, rwChannel } from '../core/names.js';
import { sleepForTtl, waitForLock } from '../locks/wait.js';
import type { Attempt, LockEnv, LockProtocol, LockRequest } from '../locks/types.js';

// Writer preference for Redisson's read-write lock, which has none (its read acquire joins any
// read mode: docs/redisson-protocol.md §2.3), as the acquire option `writer-preference` (S11). It is a
// discipline every client of the lock must follow, like using another lock implementation:
//   - a writer that has to wait registers in a ZSET (member: its holder, score: when its wait
//     runs out, so a writer that dies stops blocking readers by then) and leaves it once it got
//     the lock or gave up;
//   - a reader first asks whether a writer is registered (unless it already holds a read, or a
//     re-entrant reader would wait for a writer that waits for it), and waits like a refused
//     reader if so: for a release message on the rw channel, at most until the last registered
//     writer's wait runs out.
// The check and the read acquire are two round trips: a reader that checked just before a writer
// registered still gets in once; every reader after it waits.

/** The ZSET of waiting writers: Redisson-style name with the lock's hash tag (same Cluster slot). */
export const writersWaitingKey = (name: string): string => prefixName('redlock_cli_writers_waiting', name);

// Drops writers whose wait has run out; -1 when none is left or the reader already holds a read,
// else the ms until the last registered writer gives up.
const WRITER_WAITING = `
redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])
if redis.call('zcard', KEYS[1]) == 0 or redis.call('hexists', KEYS[2], ARGV[2]) == 1 then return -1 end
local last = redis.call('zrange', KEYS[1], -1, -1, 'withscores')
return math.max(1, tonumber(last[2]) - tonumber(ARGV[1]))`;

// Registers a waiting writer until `until` (epoch ms); the key lives as long as its latest writer.
const REGISTER = `
redis.call('zadd', KEYS[1], ARGV[1], ARGV[2])
local last = redis.call('zrange', KEYS[1], -1, -1, 'withscores')
redis.call('pexpireat', KEYS[1], last[2])
return 1`;

async function evalScript(env: LockEnv, script: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  return env.conn.client.call('EVAL', script, keys.length, ...keys, ...args);
}

// Redisson <= 4.3's read-lock renewal (RedissonReadLock.renewExpirationAsync up to 3.43, then
// ReadLockTask until 4.4.0, PR #7098): it extends the hash and the timeout keys of EVERY reader in
// it, other instances' included, so a reader whose process died is kept alive by any live one.
// KEYS[1] lock hash   KEYS[2] key prefix `{name}`   ARGV[1] lease ms   ARGV[2] holder
const RENEW_EVERY_READER = `
if redis.call('hget', KEYS[1], ARGV[2]) == false then return 0 end
redis.call('pexpire', KEYS[1], ARGV[1])
for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
  local holds = tonumber(redis.call('hget', KEYS[1], field))
  if holds then
    for n = holds, 1, -1 do
      redis.call('pexpire', KEYS[2] .. ':' .. field .. ':rwlock_timeout:' .. n, ARGV[1])
    end
  end
end
return 1`;

/** The read protocol with Redisson <= 4.3's renewal, which keeps every reader's timeout keys alive (S17). */
export function renewingEveryReader(protocol: LockProtocol): LockProtocol {
  return {
    ...protocol,
    renew: async (env, req) => Number(await evalScript(env, RENEW_EVERY_READER, [req.key, braced(req.key)], [req.leaseMs, req.owner])) === 1,
  };
}

/** A writer-preferring read acquire: wait while a writer waits, then Redisson's read acquire. */
export function readerDefersToWriters(protocol: LockProtocol, env: LockEnv, req: LockRequest, waitMs: number, signal: AbortSignal): Promise<Attempt> {
  const attempt = async (): Promise<Attempt> => {
    const writerFor = Number(await evalScript(env, WRITER_WAITING, [writersWaitingKey(req.key), req.key], [env.now(), req.owner]));
    if (writerFor < 0) return protocol.tryAcquire(env, req);
    return { acquired: false, ttlMs: writerFor, holders: [] };
  };
  return waitForLock(env, { attempt, waitMs, signal, wakeChannel: rwChannel(req.key), retryDelay: sleepForTtl });
}

/** A writer-preferring write acquire: one attempt, then wait registered as a waiting writer. */
export async function writerRegistersWhileWaiting(protocol: LockProtocol, env: LockEnv, req: LockRequest, waitMs: number, signal: AbortSignal): Promise<Attempt> {
  const first = await protocol.tryAcquire(env, req);
  if (first.acquired || waitMs <= 0) return first;
  const key = writersWaitingKey(req.key);
  const started = Date.now();
  await evalScript(env, REGISTER, [key], [started + waitMs, req.owner]);
  try {
    return await protocol.acquire(env, req, { waitMs: waitMs - (Date.now() - started), signal });
  } finally {
    await env.conn.client.call('ZREM', key, req.owner).catch(() => undefined);
  }
}
