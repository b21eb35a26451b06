import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { UsageError } from '../../src/core/errors.js';
import { newOwner } from '../../src/locks/owners.js';
import { pythonRedisLock } from '../../src/locks/python-redis-lock.js';
import { useLockServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { blockedClients, peerAcquire, peerRelease } from '../helpers/python-redis-lock-peer.js';

// Our --kind python-redis-lock against its protocol as v4.0.1 speaks it (test/helpers/python-redis-lock-peer.ts).

const fx = useLockServer();
let peer: Redis;
beforeEach(() => {
  peer = rawClient(fx.server); // its own connection: BLPOP blocks it
});
afterEach(() => peer.disconnect());

const ours = () => ({ key: 'lock:report', owner: newOwner(pythonRedisLock), leaseMs: 20_500 });

describe('--kind python-redis-lock', () => {
  it('we take it: its id form, a whole-second expiry; its acquire is refused and blocks on the wake-up list', async () => {
    const req = ours();
    expect(req.owner).toMatch(/^[A-Za-z0-9+/]{24}$/);
    expect((await pythonRedisLock.tryAcquire(fx.env, req)).acquired).toBe(true);
    expect(await fx.raw.get('lock:report')).toBe(req.owner);
    const pttl = await fx.raw.pttl('lock:report');
    expect(pttl).toBeGreaterThan(20_000);
    expect(pttl).toBeLessThanOrEqual(21_000);
    const waiter = peerAcquire(peer, 'report', { timeoutS: 20 });
    await blockedClients(fx.raw);
    expect(await fx.raw.get('lock:report')).toBe(req.owner);

    // Our release refills the list it blocks on: it wakes and takes the lock at once, not after its BLPOP timeout.
    expect(await pythonRedisLock.release(fx.env, req)).toBe('released');
    expect(await waiter.acquired).toBe(true);
    expect(waiter.stats.wakeUps).toBe(1);
    expect(await fx.raw.get('lock:report')).toBe(waiter.id);
  });

  it('it holds without TTL: we are refused, name its id and -1; its release lets our waiting acquire in', async () => {
    const theirs = peerAcquire(peer, 'report', { timeoutS: 1 });
    expect(await theirs.acquired).toBe(true);
    const req = ours();
    const refused = await pythonRedisLock.tryAcquire(fx.env, req);
    expect(refused).toMatchObject({ acquired: false, ttlMs: -1, holders: [{ owner: theirs.id, count: 1 }] });
    expect(await pythonRedisLock.release(fx.env, req)).toBe('not-owner');
    expect(await pythonRedisLock.renew(fx.env, req)).toBe(false);
    expect(await fx.raw.get('lock:report')).toBe(theirs.id);

    const waiting = pythonRedisLock.acquire(fx.env, req, { waitMs: 10_000 });
    expect(await peerRelease(peer, 'report', theirs.id)).toBe(true);
    expect((await waiting).acquired).toBe(true);
    expect(await fx.raw.get('lock:report')).toBe(req.owner);
  });

  it('release refills the wake-up list exactly as its UNLOCK_SCRIPT does: one element, gone after 1 s', async () => {
    const req = ours();
    await pythonRedisLock.tryAcquire(fx.env, req);
    await fx.raw.rpush('lock-signal:report', 'stale', 'stale');
    expect(await pythonRedisLock.release(fx.env, req)).toBe('released');
    expect(await fx.raw.lrange('lock-signal:report', 0, -1)).toEqual(['1']);
    const pttl = await fx.raw.pttl('lock-signal:report');
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(1000);
    expect(await fx.raw.exists('lock:report')).toBe(0);
  });

  it('force-unlock deletes its lock and wakes its blocked waiter, as reset() does', async () => {
    const holder = peerAcquire(fx.raw, 'report', { timeoutS: 1 });
    expect(await holder.acquired).toBe(true);
    const waiter = peerAcquire(peer, 'report', { timeoutS: 20 });
    await blockedClients(fx.raw);
    expect(await pythonRedisLock.forceUnlock(fx.env, 'lock:report')).toBe(true);
    expect(await waiter.acquired).toBe(true);
    expect(waiter.stats.wakeUps).toBe(1);
    // Nothing there: nothing deleted, nothing pushed.
    await fx.raw.del('lock:report', 'lock-signal:report');
    expect(await pythonRedisLock.forceUnlock(fx.env, 'lock:report')).toBe(false);
    expect(await fx.raw.exists('lock-signal:report')).toBe(0);
  });

  it('a key without its lock: prefix is refused before anything is sent', async () => {
    await expect(pythonRedisLock.tryAcquire(fx.env, { ...ours(), key: 'report' })).rejects.toThrow(UsageError);
    await expect(pythonRedisLock.forceUnlock(fx.env, 'report')).rejects.toThrow(
      /python-redis-lock keys are lock:<name>, not "report"/,
    );
    expect(await fx.raw.dbsize()).toBe(0);
  });
});
