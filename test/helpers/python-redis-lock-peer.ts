import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

// python-redis-lock's client side, written from v4.0.1's src/redis_lock/__init__.py (Lock.acquire
// and UNLOCK_SCRIPT's effect): no Debian or npm package carries the library, so the tests play
// its exact wire sequence on their own connection. acquire(): `SET lock:<name> <id> NX [EX s]`;
// when refused, `BLPOP lock-signal:<name> <timeout>` (timeout or expire, 0 = forever) and try
// again. release(): compare the id, DEL the list, LPUSH 1, PEXPIRE 1000, DEL the lock.

export interface PeerLock {
  readonly id: string;
  /** Resolves once its acquire() returns: true when it took the lock. */
  readonly acquired: Promise<boolean>;
  /** How many BLPOPs returned an element (wake-ups), and how many SET NX it sent. */
  readonly stats: { wakeUps: number; attempts: number };
}

/** Its default id: base64 of 18 random bytes. */
export const peerId = (): string => randomBytes(18).toString('base64');

/**
 * Lock(redis, name, expire).acquire(blocking=True, timeout): `redis` must be a connection of its
 * own, since BLPOP blocks it. The BLPOP timeout is bounded by the test (`timeoutS`), never 0.
 */
export function peerAcquire(
  redis: Redis,
  name: string,
  opts: { expireS?: number; timeoutS: number; id?: string },
): PeerLock {
  const id = opts.id ?? peerId();
  const stats = { wakeUps: 0, attempts: 0 };
  const ex = opts.expireS !== undefined ? ['EX', String(opts.expireS)] : [];
  const acquired = (async () => {
    for (let round = 0; round < 2; round++) {
      stats.attempts += 1;
      if ((await redis.call('SET', `lock:${name}`, id, 'NX', ...ex)) === 'OK') return true;
      const woke = await redis.blpop(`lock-signal:${name}`, opts.timeoutS);
      if (woke) stats.wakeUps += 1;
      else return false; // timed out: acquire(timeout=...) returns False after one more refused SET in the library; we stop here
    }
    stats.attempts += 1;
    return (await redis.call('SET', `lock:${name}`, id, 'NX', ...ex)) === 'OK';
  })();
  return { id, acquired, stats };
}

/** Lock.release(): the effect of its UNLOCK_SCRIPT, in one MULTI. False when the id does not hold it. */
export async function peerRelease(redis: Redis, name: string, id: string): Promise<boolean> {
  if ((await redis.get(`lock:${name}`)) !== id) return false;
  const signal = `lock-signal:${name}`;
  await redis.multi().del(signal).lpush(signal, '1').pexpire(signal, 1000).del(`lock:${name}`).exec();
  return true;
}

/** Resolves once `count` clients are blocked (its waiters in BLPOP), as the server reports it. */
export async function blockedClients(redis: Redis, count = 1): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const info = await redis.info('clients');
    if (Number(/blocked_clients:(\d+)/.exec(info)?.[1] ?? 0) >= count) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`fewer than ${count} clients blocked after 500 polls`);
}
