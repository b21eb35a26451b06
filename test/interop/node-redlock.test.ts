import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { Redis } from 'ioredis';
import Redlock, { Lock, type Settings as RedlockSettings } from 'redlock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openLockEnv, type OpenLockEnv } from '../../src/locks/env.js';
import { newOwner } from '../../src/locks/owners.js';
import { redlockLock } from '../../src/locks/redlock.js';
import { tokenLock } from '../../src/locks/token.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { expectLeaseSince, expectTtlReported, serverNow } from '../helpers/server-clock.js';

// The real node-redlock client (v5, over ioredis) contending with us on the same servers proves
// our token and redlock kinds are wire-compatible: same key, same value format, same scripts' rules.

let servers: RedisServer[];
let raws: Redis[];
let single: OpenLockEnv; // token kind on node 0
let multi: OpenLockEnv; // redlock kind on nodes 0..2
let theirs: Redlock; // node-redlock on node 0
let theirs3: Redlock; // node-redlock on nodes 0..2

beforeAll(async () => {
  servers = await Promise.all([startRedis(), startRedis(), startRedis()]);
  raws = servers.map((s) => rawClient(s));
  const [first] = servers;
  single = await openLockEnv(parseEndpointUrl(first!.url), { mode: 'one-shot', pubsub: 'plain' });
  multi = await openLockEnv(parseEndpointUrl(first!.url), { mode: 'one-shot', pubsub: 'plain', nodes: servers.map((s) => parseEndpointUrl(s.url)) });
  // Its own clients: node-redlock must not share connections with the code under test.
  theirs = new Redlock([rawClient(first!)], { retryCount: 0 });
  theirs3 = new Redlock(servers.map((s) => rawClient(s)), { retryCount: 0 });
});
afterAll(async () => {
  for (const r of [theirs, theirs3]) if (r) for (const c of r.clients) c.disconnect();
  raws?.forEach((r) => r.disconnect());
  await single?.close();
  await multi?.close();
  await Promise.all((servers ?? []).map((s) => s.stop()));
});
beforeEach(async () => {
  await Promise.all(raws.map((r) => r.flushall()));
});

const OURS = newOwner(tokenLock);
const req = (leaseMs = 10_000, owner = OURS) => ({ key: 'orders', owner, leaseMs });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const retrying: Partial<RedlockSettings> = { retryCount: 40, retryDelay: 50, retryJitter: 10 };
/** A node-redlock Lock handle for a value it did not take (what a stale or foreign handle looks like). */
const handle = (r: Redlock, value: string) => new Lock(r, ['orders'], value, [], Date.now() + 10_000);

describe('interop with node-redlock: single node (--kind token)', () => {
  it('it holds: our tryAcquire is refused and names its token and TTL', async () => {
    const since = await serverNow(raws[0]!);
    const lock = await theirs.acquire(['orders'], 5000);
    await expectLeaseSince(raws[0]!, 'orders', 5000, since);
    const before = await raws[0]!.pttl('orders');
    const attempt = await tokenLock.tryAcquire(single, req());
    expect(attempt.acquired).toBe(false);
    if (attempt.acquired) return;
    expect(attempt.holders).toEqual([{ owner: lock.value, count: 1 }]);
    await expectTtlReported(raws[0]!, 'orders', attempt.ttlMs, before);
  });

  it('we hold: its acquire fails after its retries, and our lock is untouched', async () => {
    await tokenLock.tryAcquire(single, req(5000));
    await expect(theirs.acquire(['orders'], 5000, { retryCount: 2, retryDelay: 20 })).rejects.toThrow(/quorum/);
    expect(await raws[0]!.get('orders')).toBe(OURS);
  });

  it('our release lets its retrying acquire succeed', async () => {
    await tokenLock.tryAcquire(single, req());
    let settled = false;
    const waiting = theirs.acquire(['orders'], 5000, retrying).finally(() => (settled = true));
    await sleep(200);
    expect(settled).toBe(false);
    expect(await tokenLock.release(single, req())).toBe('released');
    const lock = await waiting;
    expect(await raws[0]!.get('orders')).toBe(lock.value);
  });

  it('its release lets our waiting acquire succeed within one retry', async () => {
    const lock = await theirs.acquire(['orders'], 10_000);
    const waiting = tokenLock.acquire(single, req(), { waitMs: 3000 });
    await sleep(200);
    const releasedAt = Date.now();
    await lock.release();
    expect((await waiting).acquired).toBe(true);
    // One retry (100-300 ms apart) plus a busy machine's lateness, well inside the 3 s wait.
    expect(Date.now() - releasedAt).toBeLessThan(1000);
    expect(await raws[0]!.get('orders')).toBe(OURS);
  });

  it('its extend and release refuse to touch our lock', async () => {
    await tokenLock.tryAcquire(single, req(5000));
    const foreign = handle(theirs, newOwner(tokenLock));
    await expect(theirs.extend(foreign, 60_000)).rejects.toThrow(/quorum/);
    await expect(theirs.release(foreign)).rejects.toThrow(/quorum/);
    expect(await raws[0]!.get('orders')).toBe(OURS);
    expect(await raws[0]!.pttl('orders')).toBeLessThanOrEqual(5000);
  });

  it('same layout both ways: each side can extend and release the other given its token', async () => {
    await tokenLock.tryAcquire(single, req(5000));
    const lock = await theirs.extend(handle(theirs, OURS), 60_000);
    expect(await raws[0]!.pttl('orders')).toBeGreaterThan(59_000);
    await lock.release();
    expect(await raws[0]!.exists('orders')).toBe(0);

    const its = await theirs.acquire(['orders'], 1000);
    expect(await tokenLock.renew(single, req(60_000, its.value))).toBe(true);
    expect(await raws[0]!.pttl('orders')).toBeGreaterThan(59_000);
    expect(await tokenLock.release(single, req(60_000, its.value))).toBe('released');
    expect(await raws[0]!.exists('orders')).toBe(0);
  });
});

describe('interop with node-redlock: 3 nodes (--kind redlock)', () => {
  it('it holds a majority: our attempt is refused with a held vote on every node naming its token', async () => {
    const lock = await theirs3.acquire(['orders'], 5000);
    // node-redlock resolves at quorum; its attempt stats resolve once the last node has answered.
    await Promise.all(lock.attempts);
    const attempt = await redlockLock.tryAcquire(multi, req());
    expect(attempt.acquired).toBe(false);
    // A refusal is decided at quorum; the last node's vote arrives in allVotes.
    expect((await attempt.allVotes)?.map((v) => v.result)).toEqual(['held', 'held', 'held']);
    expect(!attempt.acquired && attempt.holders).toEqual([{ owner: lock.value, count: 1 }]);
    await lock.release();
  });

  it('we hold a majority: its acquire fails; our release lets its retrying acquire take a majority', async () => {
    expect((await redlockLock.tryAcquire(multi, req())).acquired).toBe(true);
    await expect(theirs3.acquire(['orders'], 5000)).rejects.toThrow(/quorum/);
    const waiting = theirs3.acquire(['orders'], 5000, retrying);
    await sleep(150);
    expect(await redlockLock.release(multi, req())).toBe('released');
    const lock = await waiting;
    await Promise.all(lock.attempts);
    // Its retry may race our per-node DELs and win on only 2 of 3 nodes: a majority is its contract.
    // A failed attempt's clean-up (its own, or our last DEL) may still be in flight when the winning
    // attempt resolves: the nodes settle on its value or nothing.
    await vi.waitFor(
      async () => {
        const values = await Promise.all(raws.map((r) => r.get('orders')));
        expect(values.filter((v) => v === lock.value).length).toBeGreaterThanOrEqual(2);
        expect(values.every((v) => v === lock.value || v === null), JSON.stringify(values)).toBe(true);
      },
      { timeout: 3_000, interval: 20 },
    );
  });
});
