import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { newOwner } from '../../src/locks/owners.js';
import { springLock } from '../../src/locks/spring.js';
import { useLockServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { expectLeaseSince, serverNow } from '../helpers/server-clock.js';

// Spring Integration RedisLockRegistry (docs/lock-formats.md): key `<registryKey>:<lockKey>`,
// value the registry's client id, PX expiry; PUB_SUB_LOCK waiters PSUBSCRIBE `<registryKey>-channel:*`
// and wake on a message whose body is the lock's key (RedisLockRegistry.java, v7.1.1).

const fx = useLockServer();
const KEY = 'orders:invoice-7';
const A = newOwner(springLock);
const B = newOwner(springLock);
const req = (owner: string, leaseMs = 10_000, key = KEY) => ({ key, owner, leaseMs });

/** A PUB_SUB_LOCK registry's unlock listener: the pattern subscription its waiters share. */
async function springWaiter(registryKey: string) {
  const sub: Redis = rawClient(fx.server);
  const heard: { channel: string; message: string }[] = [];
  sub.on('pmessage', (_p: string, channel: string, message: string) => heard.push({ channel, message }));
  await sub.psubscribe(`${registryKey}-channel:*`);
  // A PING answered on the subscriber's connection comes after every message published before it.
  const drained = async () => {
    await sub.ping();
    return heard;
  };
  return { drained, close: () => sub.disconnect() };
}

let waiters: { close(): void }[] = [];
afterEach(() => {
  for (const w of waiters) w.close();
  waiters = [];
});

describe('spring (RedisLockRegistry)', () => {
  it('writes the registry layout: a string holding the client id (a UUID) with a PX lease', async () => {
    expect(A).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const since = await serverNow(fx.raw);
    expect(await springLock.tryAcquire(fx.env, req(A, 5000))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.get(KEY)).toBe(A);
    await expectLeaseSince(fx.raw, KEY, 5000, since);
  });

  it('re-enters its own client id by moving the expiry, and refuses another client id', async () => {
    await springLock.tryAcquire(fx.env, req(A, 2000));
    expect(await springLock.tryAcquire(fx.env, req(A, 60_000))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.pttl(KEY)).toBeGreaterThan(2000);
    const other = await springLock.tryAcquire(fx.env, req(B));
    expect(other.acquired).toBe(false);
    expect(!other.acquired && other.holders).toEqual([{ owner: A, count: 1 }]);
    // What the registry's obtain does for a second client id: the key exists with another value, so no SET.
    expect(await fx.raw.set(KEY, B, 'PX', 1000, 'NX')).toBeNull();
    expect(await fx.raw.get(KEY)).toBe(A);
  });

  it('renews only while the key holds its client id', async () => {
    await springLock.tryAcquire(fx.env, req(A, 1000));
    expect(await springLock.renew(fx.env, req(A, 30_000))).toBe(true);
    expect(await fx.raw.pttl(KEY)).toBeGreaterThan(1000);
    expect(await springLock.renew(fx.env, req(B, 30_000))).toBe(false);
    await fx.raw.del(KEY);
    expect(await springLock.renew(fx.env, req(A, 30_000))).toBe(false);
    expect(await fx.raw.exists(KEY)).toBe(0);
  });

  it('release wakes a PUB_SUB_LOCK waiter with the key on <registryKey>-channel:<key>; a wrong id changes nothing', async () => {
    const waiter = await springWaiter('orders');
    waiters.push(waiter);
    await springLock.tryAcquire(fx.env, req(A));
    expect(await springLock.release(fx.env, req(B))).toBe('not-owner');
    expect(await fx.raw.get(KEY)).toBe(A);
    expect(await waiter.drained()).toEqual([]);
    expect(await springLock.release(fx.env, req(A))).toBe('released');
    expect(await fx.raw.exists(KEY)).toBe(0);
    expect(await waiter.drained()).toEqual([{ channel: 'orders-channel:orders:invoice-7', message: KEY }]);
  });

  it('a registry key with a colon in it hears the release too (one message per possible split)', async () => {
    const waiter = await springWaiter('app:locks');
    waiters.push(waiter);
    const key = 'app:locks:nightly';
    await springLock.tryAcquire(fx.env, req(A, 10_000, key));
    expect(await springLock.release(fx.env, req(A, 10_000, key))).toBe('released');
    expect(await waiter.drained()).toEqual([{ channel: 'app:locks-channel:app:locks:nightly', message: key }]);
  });

  it('our waiter wakes on the registry unlock message, before the lease would run out', async () => {
    await fx.raw.set(KEY, B, 'PX', 60_000);
    const waiting = springLock.acquire(fx.env, req(A), { waitMs: 30_000 });
    // Wait until our waiter subscribed, then release as a registry does: UNLINK and publish the key.
    for (let i = 0; i < 200 && Number((await fx.raw.pubsub('NUMSUB', 'orders-channel:orders:invoice-7'))[1]) === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await fx.raw.unlink(KEY);
    await fx.raw.publish('orders-channel:orders:invoice-7', KEY);
    expect(await waiting).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.get(KEY)).toBe(A);
  });

  it('force-unlock deletes whoever holds it and wakes PUB_SUB_LOCK waiters; nothing to delete publishes nothing', async () => {
    const waiter = await springWaiter('orders');
    waiters.push(waiter);
    expect(await springLock.forceUnlock(fx.env, KEY)).toBe(false);
    expect(await waiter.drained()).toEqual([]);
    await fx.raw.set(KEY, B, 'PX', 60_000);
    expect(await springLock.forceUnlock(fx.env, KEY)).toBe(true);
    expect(await fx.raw.exists(KEY)).toBe(0);
    expect(await waiter.drained()).toEqual([{ channel: 'orders-channel:orders:invoice-7', message: KEY }]);
  });
});
