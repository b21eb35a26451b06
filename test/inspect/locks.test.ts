import { describe, expect, it } from 'vitest';
import { fairWaiterChannel, lockChannel, rwChannel, rwTimeoutPrefix } from '../../src/core/names.js';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { fairLock } from '../../src/locks/fair.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { newOwner } from '../../src/locks/owners.js';
import { readLock, writeLock } from '../../src/locks/rw.js';
import { tokenLock } from '../../src/locks/token.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner, rawClient } from '../helpers/lock-env.js';

// States built with our own lock engine (the Redisson protocols), then read back by inspectKeys.

const fx = useLockServer();
const req = (key: string, n: number, leaseMs = 10_000) => ({ key, owner: owner(n), leaseMs });
const inspectOne = async (key: string) => (await inspectKeys(fx.env.conn, [key]))[0]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw client subscribed to channels, like a Redisson waiter. */
async function subscriber(...channels: string[]) {
  const sub = rawClient(fx.server);
  await sub.subscribe(...channels);
  return sub;
}

describe('Redisson hash locks from our engine', () => {
  it('reentrant held twice: holder, client, thread, count, lease, waiters on the unlock channel', async () => {
    const lock = hashLock('reentrant');
    await lock.tryAcquire(fx.env, req('orders', 1));
    await lock.tryAcquire(fx.env, req('orders', 1, 8000));
    const sub = await subscriber(lockChannel('orders'));
    const v = await inspectOne('orders');
    sub.disconnect();
    expect(v).toMatchObject({ key: 'orders', kind: 'reentrant', type: 'hash', waiters: 1, warnings: [] });
    expect(v.holders).toEqual([{ owner: owner(1), client: owner(1).slice(0, 36), thread: '1', count: 2 }]);
    expect(v.ttlMs).toBeGreaterThan(7000);
    expect(v.ttlMs).toBeLessThanOrEqual(8000);
    expect(Math.abs(v.readAt - Date.now())).toBeLessThan(2000);
  });

  it('fenced: the counter counts every acquisition and outlives the hold', async () => {
    const lock = hashLock('fenced');
    await lock.tryAcquire(fx.env, req('f', 1));
    await lock.tryAcquire(fx.env, req('f', 1));
    expect(await inspectOne('f')).toMatchObject({ kind: 'fenced', token: 2, holders: [{ count: 2 }] });
    await lock.release(fx.env, req('f', 1));
    await lock.release(fx.env, req('f', 1));
    expect(await inspectOne('f')).toMatchObject({ kind: 'fenced', type: 'none', holders: [], token: 2 });
  });

  it('fair: waiters in order with Redisson deadlines (lease 30 s, wait 5 s: 35 s, 40 s) and their own channels', async () => {
    const fair = fairLock();
    await fair.tryAcquire(fx.env, req('q', 1, 30_000));
    await fair.queuedAttempt(fx.env, req('q', 2), 5000);
    await fair.queuedAttempt(fx.env, req('q', 3), 5000);
    const sub = await subscriber(fairWaiterChannel('q', owner(2)));
    const v = await inspectOne('q');
    sub.disconnect();
    expect(v).toMatchObject({ kind: 'fair', holders: [{ owner: owner(1), count: 1 }], waiters: 1, warnings: [] });
    expect(v.queue!.map((q) => [q.owner, q.position, q.subscribers])).toEqual([[owner(2), 0, 1], [owner(3), 1, 0]]);
    const [first, second] = v.queue!;
    expect(first!.deadlineInMs).toBeGreaterThan(34_000);
    expect(first!.deadlineInMs).toBeLessThanOrEqual(35_000);
    expect(second!.deadlineInMs! - first!.deadlineInMs!).toBe(5000);
    expect(first!.expectedWaitMs).toBe(v.ttlMs);
    expect(second!.expectedWaitMs).toBe(first!.deadlineInMs);
  });

  it('fair: a waiter whose deadline passed while the holder renewed is overdue, purged at the next attempt', async () => {
    const fair = fairLock({ threadWaitMs: 50 });
    await fair.tryAcquire(fx.env, req('q', 1, 100));
    await fair.queuedAttempt(fx.env, req('q', 2), 0);
    await fair.renew(fx.env, req('q', 1, 10_000)); // the watchdog keeps the lock past the waiter's deadline
    await sleep(300);
    const v = await inspectOne('q');
    expect(v.holders).toHaveLength(1);
    expect(v.queue![0]!.deadlineInMs).toBeLessThan(-100);
    expect(v.warnings).toEqual([
      expect.objectContaining({ code: 'overdue-waiter', severity: 'warning', message: expect.stringMatching(/overdue \d+ ms: purged at the next attempt$/) }),
    ]);
  });
});

describe('read-write locks from our engine', () => {
  it('two readers: counts, timeout keys with TTLs, hash TTL = longest hold, rw-channel waiters', async () => {
    await readLock().tryAcquire(fx.env, req('rw', 1, 5000));
    await readLock().tryAcquire(fx.env, req('rw', 1, 20_000));
    await readLock().tryAcquire(fx.env, req('rw', 2, 8000));
    const sub = await subscriber(rwChannel('rw'));
    const v = await inspectOne('rw');
    sub.disconnect();
    expect(v).toMatchObject({ kind: 'rw', mode: 'read', waiters: 1, orphanTimeoutKeys: [], warnings: [] });
    expect(v.readers!.map((r) => [r.owner, r.count, r.timeoutKeys.map((k) => k.key), r.zombie])).toEqual([
      [owner(1), 2, [1, 2].map((n) => `${rwTimeoutPrefix('rw', owner(1))}:${n}`), false],
      [owner(2), 1, [`${rwTimeoutPrefix('rw', owner(2))}:1`], false],
    ]);
    expect(v.readers![0]!.timeoutKeys[1]!.ttlMs).toBeGreaterThan(19_000);
    expect(v.ttlMs).toBeGreaterThan(19_000);
  });

  it('writer that also reads: writer flagged, its read hold listed as a reader', async () => {
    await writeLock().tryAcquire(fx.env, req('rw', 1));
    await readLock().tryAcquire(fx.env, req('rw', 1));
    const v = await inspectOne('rw');
    expect(v.mode).toBe('write');
    expect(v.holders.map((h) => [h.owner, h.write ?? false])).toEqual([[`${owner(1)}:write`, true], [owner(1), false]]);
    expect(v.readers!.map((r) => r.owner)).toEqual([owner(1)]);
  });

  it('zombie reader: its timeout keys expired while the hash lives on', async () => {
    await readLock().tryAcquire(fx.env, req('rw', 1, 10_000));
    await readLock().tryAcquire(fx.env, req('rw', 2, 150));
    await sleep(250);
    const v = await inspectOne('rw');
    expect(v.readers!.map((r) => [r.owner, r.zombie])).toEqual([[owner(1), false], [owner(2), true]]);
    expect(v.warnings.map((w) => w.code)).toEqual(['zombie-reader']);
  });

  it('orphan timeout key: a hold key past the reader count (left by a client that crashed mid-release)', async () => {
    await readLock().tryAcquire(fx.env, req('rw', 1));
    await readLock().tryAcquire(fx.env, req('rw', 1));
    await fx.raw.hincrby('rw', owner(1), -1);
    const v = await inspectOne('rw');
    expect(v.orphanTimeoutKeys).toEqual([{ key: `${rwTimeoutPrefix('rw', owner(1))}:2`, ttlMs: expect.any(Number) }]);
    expect(v.warnings.map((w) => w.code)).toEqual(['orphan-timeout-key']);
  });

  it('a hash TTL shorter than a read hold is a disagreement', async () => {
    await readLock().tryAcquire(fx.env, req('rw', 1, 20_000));
    await fx.raw.pexpire('rw', 3000);
    expect((await inspectOne('rw')).warnings.map((w) => w.code)).toEqual(['ttl-disagreement']);
  });
});

describe('token locks and missing keys', () => {
  it('our token lock writes node-redlock\'s format', async () => {
    const token = newOwner(tokenLock);
    await tokenLock.tryAcquire(fx.env, { key: 'job', owner: token, leaseMs: 5000 });
    expect(await inspectOne('job')).toMatchObject({ kind: 'token', value: token, library: 'node-redlock', holders: [{ owner: token, count: 1 }] });
  });

  it('a key without TTL is an error', async () => {
    await fx.raw.hset('stuck', owner(1), '1');
    expect((await inspectOne('stuck')).warnings[0]).toMatchObject({ code: 'no-ttl', severity: 'error' });
  });

  it('several keys come back in order, missing ones as missing', async () => {
    await hashLock('reentrant').tryAcquire(fx.env, req('a', 1));
    const views = await inspectKeys(fx.env.conn, ['nope', 'a', 'nope2']);
    expect(views.map((v) => [v.key, v.kind])).toEqual([['nope', 'missing'], ['a', 'reentrant'], ['nope2', 'missing']]);
    expect(await inspectKeys(fx.env.conn, [])).toEqual([]);
  });
});
