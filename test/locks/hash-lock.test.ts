import { describe, expect, it } from 'vitest';
import { hashLock } from '../../src/locks/hash-lock.js';
import { owner, recordChannel, testEnv } from '../helpers/lock-env.js';
import { useLockServer } from '../helpers/fixture.js';
import { expectLeaseSince, expectTtlReported, serverNow } from '../helpers/server-clock.js';

const fx = useLockServer();

const rlock = hashLock('reentrant');
const req = (n: number, leaseMs = 10_000, key = 'orders') => ({ key, owner: owner(n), leaseMs });

describe('reentrant (Redisson RLock)', () => {
  it('writes the Redisson layout: hash field <uuid>:<thread> -> count, with PEXPIRE lease', async () => {
    const since = await serverNow(fx.raw);
    const attempt = await rlock.tryAcquire(fx.env, req(1, 5000));
    expect(attempt).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.hgetall('orders')).toEqual({ [owner(1)]: '1' });
    await expectLeaseSince(fx.raw, 'orders', 5000, since);
  });

  it('refuses another owner and reports the holder and TTL', async () => {
    await rlock.tryAcquire(fx.env, req(1, 5000));
    const before = await fx.raw.pttl('orders');
    const attempt = await rlock.tryAcquire(fx.env, req(2));
    expect(attempt.acquired).toBe(false);
    if (attempt.acquired) return;
    expect(attempt.holders).toEqual([{ owner: owner(1), count: 1 }]);
    await expectTtlReported(fx.raw, 'orders', attempt.ttlMs, before);
  });

  it('re-entry increments the count and resets the TTL to the new lease (may shorten it)', async () => {
    await rlock.tryAcquire(fx.env, req(1, 30_000));
    const again = await rlock.tryAcquire(fx.env, req(1, 10_000));
    expect(again).toEqual({ acquired: true, count: 2 });
    expect(await fx.raw.pttl('orders')).toBeLessThanOrEqual(10_000);
  });

  it('re-entrant unlock keeps the lock and re-applies the lease (testRemainTimeToLive2)', async () => {
    for (let i = 0; i < 3; i++) await rlock.tryAcquire(fx.env, req(1, 10_000));
    await fx.raw.pexpire('orders', 2000);
    expect(await rlock.release(fx.env, req(1, 10_000))).toBe('decremented');
    expect(await rlock.release(fx.env, req(1, 10_000))).toBe('decremented');
    const pttl = await fx.raw.pttl('orders');
    expect(pttl).toBeGreaterThanOrEqual(9000);
    expect(pttl).toBeLessThanOrEqual(10_000);
    expect(await rlock.release(fx.env, req(1))).toBe('released');
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('refuses a non-owner unlock and leaves the lock untouched (testUnlockFail)', async () => {
    await rlock.tryAcquire(fx.env, req(1));
    expect(await rlock.release(fx.env, req(2))).toBe('not-owner');
    expect(await fx.raw.hget('orders', owner(1))).toBe('1');
  });

  it('unlocking an expired lock is refused like Redisson >= 3.11 (testExpire)', async () => {
    await rlock.tryAcquire(fx.env, req(1, 100));
    await new Promise((r) => setTimeout(r, 150));
    expect(await rlock.release(fx.env, req(1))).toBe('not-owner');
  });

  it('publishes 0 on redisson_lock__channel:{name} only on the full release', async () => {
    const rec = await recordChannel(fx.server, 'redisson_lock__channel*');
    await rlock.tryAcquire(fx.env, req(1));
    await rlock.tryAcquire(fx.env, req(1));
    await rlock.release(fx.env, req(1));
    await rlock.release(fx.env, req(1));
    await new Promise((r) => setTimeout(r, 50));
    rec.close();
    expect(rec.messages.map((m) => [m.channel, m.message])).toEqual([['redisson_lock__channel:{orders}', '0']]);
  });

  it('renews only while held (watchdog contract)', async () => {
    await rlock.tryAcquire(fx.env, req(1, 1000));
    expect(await rlock.renew(fx.env, req(1, 20_000))).toBe(true);
    expect(await fx.raw.pttl('orders')).toBeGreaterThan(19_000);
    expect(await rlock.renew(fx.env, req(2, 20_000))).toBe(false);
  });

  it('force unlock deletes whoever holds it and wakes waiters', async () => {
    const rec = await recordChannel(fx.server, 'redisson_lock__channel*');
    await rlock.tryAcquire(fx.env, req(1));
    expect(await rlock.forceUnlock(fx.env, 'orders')).toBe(true);
    expect(await rlock.forceUnlock(fx.env, 'orders')).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    rec.close();
    expect(await fx.raw.exists('orders')).toBe(0);
    expect(rec.messages).toHaveLength(1);
  });

  it('a waiter is woken by the release, not by its TTL timer', async () => {
    await rlock.tryAcquire(fx.env, req(1, 10_000));
    const waiting = rlock.acquire(fx.env, req(2), { waitMs: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    const releasedAt = Date.now();
    await rlock.release(fx.env, req(1));
    const attempt = await waiting;
    expect(attempt.acquired).toBe(true);
    // Well under the fallback (the lock's TTL, seconds): only the unlock message wakes it this soon, also on a busy machine.
    expect(Date.now() - releasedAt).toBeLessThan(1000);
  });

  it('a waiter retries on the TTL timer when the holder just expires (no publish on expiry)', async () => {
    await rlock.tryAcquire(fx.env, req(1, 300));
    const started = Date.now();
    const attempt = await rlock.acquire(fx.env, req(2), { waitMs: 3000 });
    expect(attempt.acquired).toBe(true);
    expect(Date.now() - started).toBeLessThan(800);
  });

  it('gives up after the wait and reports the holder (testTryLockWait)', async () => {
    await rlock.tryAcquire(fx.env, req(1, 10_000));
    const started = Date.now();
    const attempt = await rlock.acquire(fx.env, req(2), { waitMs: 400 });
    const took = Date.now() - started;
    expect(attempt.acquired).toBe(false);
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(900);
  });

  it('an aborted wait throws InterruptedError and leaves no subscription behind', async () => {
    await rlock.tryAcquire(fx.env, req(1, 10_000));
    const controller = new AbortController();
    const waiting = rlock.acquire(fx.env, req(2), { waitMs: 5000, signal: controller.signal });
    setTimeout(() => controller.abort(), 150);
    await expect(waiting).rejects.toMatchObject({ exitCode: 130 });
    await new Promise((r) => setTimeout(r, 50));
    expect(await fx.raw.pubsub('NUMSUB', 'redisson_lock__channel:{orders}')).toEqual(['redisson_lock__channel:{orders}', 0]);
  });

  it('refuses keys of another type or a read-write hash without writing', async () => {
    await fx.raw.rpush('list', 'a');
    await expect(rlock.tryAcquire(fx.env, req(1, 1000, 'list'))).rejects.toMatchObject({ exitCode: 2 });
    await fx.raw.hset('rw', 'mode', 'read', owner(3), '1');
    await expect(rlock.tryAcquire(fx.env, req(1, 1000, 'rw'))).rejects.toThrow(/read-write lock/);
    await fx.raw.set('tok', 'abc', 'PX', 5000);
    await expect(rlock.tryAcquire(fx.env, req(1, 1000, 'tok'))).rejects.toThrow(/string/);
    expect(await fx.raw.lrange('list', 0, -1)).toEqual(['a']);
    expect(await fx.raw.hgetall('rw')).toEqual({ mode: 'read', [owner(3)]: '1' });
    expect(await fx.raw.get('tok')).toBe('abc');
  });
});

describe('fenced (Redisson RFencedLock)', () => {
  const fenced = hashLock('fenced');
  it('increments redisson_lock_token:{name} on every acquisition, re-entry included; never resets (testTokenIncrease)', async () => {
    const tokens: number[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await fenced.tryAcquire(fx.env, req(1));
      if (a.acquired) tokens.push(a.token ?? -1);
    }
    await fenced.release(fx.env, req(1));
    await fenced.release(fx.env, req(1));
    await fenced.release(fx.env, req(1));
    const after = await fenced.tryAcquire(fx.env, req(2));
    expect(after.acquired && after.token).toBe(4);
    expect(tokens).toEqual([1, 2, 3]);
    expect(await fx.raw.get('redisson_lock_token:{orders}')).toBe('4');
    expect(await fx.raw.pttl('redisson_lock_token:{orders}')).toBe(-1);
  });
  it('a refused attempt does not consume a token', async () => {
    await fenced.tryAcquire(fx.env, req(1));
    expect((await fenced.tryAcquire(fx.env, req(2))).acquired).toBe(false);
    expect(await fx.raw.get('redisson_lock_token:{orders}')).toBe('1');
  });
});

describe('spin (Redisson RSpinLock)', () => {
  const spin = hashLock('spin');
  it('uses the RLock layout, never publishes, and waiters poll until the lock frees', async () => {
    const rec = await recordChannel(fx.server, '*');
    await spin.tryAcquire(fx.env, req(1, 10_000));
    expect(await fx.raw.hgetall('orders')).toEqual({ [owner(1)]: '1' });
    const waiting = spin.acquire(fx.env, req(2), { waitMs: 3000 });
    await new Promise((r) => setTimeout(r, 100));
    const releasedAt = Date.now();
    expect(await spin.release(fx.env, req(1))).toBe('released');
    expect((await waiting).acquired).toBe(true);
    // Back-off is capped at 128 ms (+ jitter): the next attempt comes soon after the release,
    // long before the 3 s wait, also on a busy machine.
    expect(Date.now() - releasedAt).toBeLessThan(1000);
    expect(await spin.forceUnlock(fx.env, 'orders')).toBe(true);
    rec.close();
    expect(rec.messages).toEqual([]);
  });
  it('shares state with RLock: a spin holder blocks a reentrant attempt', async () => {
    await spin.tryAcquire(fx.env, req(1));
    expect((await rlock.tryAcquire(fx.env, req(2))).acquired).toBe(false);
  });
});

describe('forced sharded pub/sub on a single server', () => {
  it('a waiter SSUBSCRIBEs and is woken by the SPUBLISH of the release', async () => {
    const sharded = await testEnv(fx.server, 'sharded');
    try {
      await rlock.tryAcquire(sharded, req(1, 10_000));
      const waiting = rlock.acquire(sharded, req(2), { waitMs: 5000 });
      await new Promise((r) => setTimeout(r, 200));
      const releasedAt = Date.now();
      expect(await rlock.release(sharded, req(1))).toBe('released');
      expect((await waiting).acquired).toBe(true);
      // Well under the fallback (the lock's TTL, seconds): only the unlock message wakes it this soon, also on a busy machine.
      expect(Date.now() - releasedAt).toBeLessThan(1000);
    } finally {
      await sharded.close();
    }
  });
});
