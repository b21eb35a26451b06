import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bsmRedislock } from '../../src/locks/bsm-redislock.js';
import { newOwner } from '../../src/locks/owners.js';
import { useLockServer } from '../helpers/fixture.js';
import { bsmObtain, bsmObtainOnce, bsmRelease, bsmToken } from '../helpers/bsm-redislock-peer.js';
import { rawClient } from '../helpers/lock-env.js';

// Our --kind bsm-redislock against its protocol as v0.10.0 speaks it (test/helpers/bsm-redislock-peer.ts).

const fx = useLockServer();
let peer: Redis;
beforeEach(() => {
  peer = rawClient(fx.server);
});
afterEach(() => peer.disconnect());

const ours = (owner = newOwner(bsmRedislock)) => ({ key: 'orders', owner, leaseMs: 10_000 });

describe('--kind bsm-redislock', () => {
  it('we take it with its token form: its obtain is refused; our release lets its retrying obtain in', async () => {
    const req = ours();
    expect(req.owner).toMatch(/^[A-Za-z0-9_-]{21}[AEIMQUYcgkosw048]$/);
    expect((await bsmRedislock.tryAcquire(fx.env, req)).acquired).toBe(true);
    const theirs = `${bsmToken()}worker-7`;
    expect(await bsmObtainOnce(peer, ['orders'], theirs, 5000)).toBe(false);
    expect(await bsmRelease(peer, ['orders'], theirs)).toBe(false);
    expect(await fx.raw.get('orders')).toBe(req.owner);

    const waiting = bsmObtain(peer, ['orders'], theirs, 5000, 50, 100);
    expect(await bsmRedislock.release(fx.env, req)).toBe('released');
    expect(await waiting).toBe(true);
    expect(await fx.raw.get('orders')).toBe(theirs);
  });

  it('it holds with metadata: we are refused and name its value; its release lets our waiting acquire in', async () => {
    const theirs = `${bsmToken()}worker-7`;
    expect(await bsmObtainOnce(peer, ['orders'], theirs, 5000)).toBe(true);
    const req = ours();
    const refused = await bsmRedislock.tryAcquire(fx.env, req);
    expect(refused.acquired).toBe(false);
    expect(!refused.acquired && refused.holders).toEqual([{ owner: theirs, count: 1 }]);
    expect(await bsmRedislock.release(fx.env, req)).toBe('not-owner');
    expect(await bsmRedislock.renew(fx.env, req)).toBe(false);

    const waiting = bsmRedislock.acquire(fx.env, req, { waitMs: 10_000 });
    expect(await bsmRelease(peer, ['orders'], theirs)).toBe(true);
    expect((await waiting).acquired).toBe(true);
    expect(await fx.raw.get('orders')).toBe(req.owner);
  });

  it('the same token re-obtains (v0.9.4+), with new metadata; refresh and release need the whole value', async () => {
    const token = bsmToken();
    expect((await bsmRedislock.tryAcquire(fx.env, ours(`${token}first`))).acquired).toBe(true);
    expect((await bsmRedislock.tryAcquire(fx.env, { ...ours(`${token}second`), leaseMs: 30_000 })).acquired).toBe(true);
    expect(await fx.raw.get('orders')).toBe(`${token}second`);
    expect(await fx.raw.pttl('orders')).toBeGreaterThan(20_000);
    expect(await bsmRedislock.renew(fx.env, ours(`${token}first`))).toBe(false);
    expect(await bsmRedislock.renew(fx.env, { ...ours(`${token}second`), leaseMs: 60_000 })).toBe(true);
    expect(await fx.raw.pttl('orders')).toBeGreaterThan(50_000);
    expect(await bsmRedislock.release(fx.env, ours(`${token}second`))).toBe('released');
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('one key of its ObtainMulti lock held by us: its whole ObtainMulti is refused and writes nothing', async () => {
    await bsmRedislock.tryAcquire(fx.env, { ...ours(), key: 'b' });
    expect(await bsmObtainOnce(peer, ['a', 'b', 'c'], bsmToken(), 5000)).toBe(false);
    expect(await fx.raw.exists('a', 'c')).toBe(0);
  });
});
