import { Redisson } from 'node-redisson';
import { TimeUnit } from 'node-redisson/dist/utils/TimeUnit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashLock } from '../../src/locks/hash-lock.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';

// node-redisson speaks Redisson's RLock protocol (hash field <uuid>:<clientId>, publish 0 on
// redisson_lock__channel:{name}); contending with it proves our reentrant kind is wire-compatible.

const fx = useLockServer();
let redisson: Redisson;
beforeAll(() => {
  redisson = new Redisson({ redis: { options: { host: '127.0.0.1', port: fx.server.port } } });
});
afterAll(async () => {
  await redisson?.quit();
});

const ours = hashLock('reentrant');
const MS = TimeUnit.MILLISECONDS;

describe('interop with node-redisson (RLock)', () => {
  it('it holds: our attempt is refused and names its holder field', async () => {
    const theirs = redisson.getLock('orders');
    await theirs.lock(10_000, MS);
    const attempt = await ours.tryAcquire(fx.env, { key: 'orders', owner: owner(1), leaseMs: 5000 });
    expect(attempt.acquired).toBe(false);
    const fields = Object.keys(await fx.raw.hgetall('orders'));
    expect(!attempt.acquired && attempt.holders.map((h) => h.owner)).toEqual(fields);
    expect(fields[0]).toContain(theirs.clientId);
    await theirs.unlock();
  });

  it('we hold: its tryLock fails, and it cannot unlock our lock', async () => {
    await ours.tryAcquire(fx.env, { key: 'orders', owner: owner(1), leaseMs: 10_000 });
    const theirs = redisson.getLock('orders');
    expect(await theirs.tryLock(200, 10_000, MS)).toBe(false);
    await expect(theirs.unlock()).rejects.toThrow(/not locked by current client/);
    expect(await fx.raw.hgetall('orders')).toEqual({ [owner(1)]: '1' });
  });

  it('our release wakes its waiting lock() at once (its own fallback timer is the 10 s TTL)', async () => {
    await ours.tryAcquire(fx.env, { key: 'orders', owner: owner(1), leaseMs: 10_000 });
    const theirs = redisson.getLock('orders');
    const waiting = theirs.tryLock(5000, 10_000, MS);
    await new Promise((r) => setTimeout(r, 300));
    const releasedAt = Date.now();
    expect(await ours.release(fx.env, { key: 'orders', owner: owner(1), leaseMs: 10_000 })).toBe('released');
    expect(await waiting).toBe(true);
    // Well under the fallback (the lock's TTL, seconds): only the unlock message wakes it this soon, also on a busy machine.
    expect(Date.now() - releasedAt).toBeLessThan(1000);
    await theirs.unlock();
  });

  it('its unlock wakes our waiting acquire at once', async () => {
    const theirs = redisson.getLock('orders');
    await theirs.lock(10_000, MS);
    const waiting = ours.acquire(fx.env, { key: 'orders', owner: owner(2), leaseMs: 5000 }, { waitMs: 5000 });
    await new Promise((r) => setTimeout(r, 300));
    const releasedAt = Date.now();
    await theirs.unlock();
    expect((await waiting).acquired).toBe(true);
    // Well under the fallback (the lock's TTL, seconds): only the unlock message wakes it this soon, also on a busy machine.
    expect(Date.now() - releasedAt).toBeLessThan(1000);
    expect(await fx.raw.hgetall('orders')).toEqual({ [owner(2)]: '1' });
  });
});
