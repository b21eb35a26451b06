import { describe, expect, it } from 'vitest';
import { newOwner } from '../../src/locks/owners.js';
import { nodeRedlockRetryDelay, tokenLock } from '../../src/locks/token.js';
import { deleteStrategy } from '../../src/redis/compare-and-delete.js';
import { owner as redissonOwner } from '../helpers/lock-env.js';
import { useLockServer } from '../helpers/fixture.js';
import { expectLeaseSince, expectTtlReported, serverNow } from '../helpers/server-clock.js';

const fx = useLockServer();

const A = newOwner(tokenLock);
const B = newOwner(tokenLock);
const req = (owner: string, leaseMs = 10_000, key = 'orders') => ({ key, owner, leaseMs });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** EVAL + EVALSHA calls the fx.server has run so far (INFO commandstats). */
async function scriptCalls(): Promise<number> {
  const info = await fx.raw.info('commandstats');
  return [...info.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
}

describe('token (node-redlock / redsync / redis-py single key)', () => {
  it('writes node-redlock layout: a string holding a 32-hex token, with PX lease', async () => {
    expect(A).toMatch(/^[0-9a-f]{32}$/);
    const since = await serverNow(fx.raw);
    expect(await tokenLock.tryAcquire(fx.env, req(A, 5000))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.type('orders')).toBe('string');
    expect(await fx.raw.get('orders')).toBe(A);
    await expectLeaseSince(fx.raw, 'orders', 5000, since);
  });

  it('refuses another token and reports the holder value and TTL', async () => {
    await tokenLock.tryAcquire(fx.env, req(A, 5000));
    const before = await fx.raw.pttl('orders');
    const attempt = await tokenLock.tryAcquire(fx.env, req(B));
    expect(attempt.acquired).toBe(false);
    if (attempt.acquired) return;
    expect(attempt.holders).toEqual([{ owner: A, count: 1 }]);
    await expectTtlReported(fx.raw, 'orders', attempt.ttlMs, before);
    expect(await fx.raw.get('orders')).toBe(A);
  });

  it('does not re-enter: the same token is refused while held and the TTL is not reset (node-redlock checks EXISTS)', async () => {
    await tokenLock.tryAcquire(fx.env, req(A, 2000));
    const again = await tokenLock.tryAcquire(fx.env, req(A, 60_000));
    expect(again.acquired).toBe(false);
    expect(!again.acquired && again.holders).toEqual([{ owner: A, count: 1 }]);
    expect(await fx.raw.pttl('orders')).toBeLessThanOrEqual(2000);
  });

  it('reports a hand-written lock without TTL as ttl -1', async () => {
    await fx.raw.set('orders', 'by-hand');
    const attempt = await tokenLock.tryAcquire(fx.env, req(A));
    expect(attempt).toEqual({ acquired: false, ttlMs: -1, holders: [{ owner: 'by-hand', count: 1 }] });
  });

  it('compare-and-delete (Lua fallback on Redis 7.0): a wrong token is refused and the key kept', async () => {
    expect(await deleteStrategy(fx.env.conn.client)).toBe('lua');
    await tokenLock.tryAcquire(fx.env, req(A));
    const before = await scriptCalls();
    expect(await tokenLock.release(fx.env, req(B))).toBe('not-owner');
    expect(await fx.raw.get('orders')).toBe(A);
    expect(await tokenLock.release(fx.env, req(A))).toBe('released');
    expect(await fx.raw.exists('orders')).toBe(0);
    expect(await tokenLock.release(fx.env, req(A))).toBe('not-owner');
    // Three releases, three scripts: no native command was used on this fx.server.
    expect((await scriptCalls()) - before).toBe(3);
  });

  it('extends only with the right token, re-setting PX to the new lease', async () => {
    await tokenLock.tryAcquire(fx.env, req(A, 1000));
    expect(await tokenLock.renew(fx.env, req(B, 30_000))).toBe(false);
    expect(await fx.raw.pttl('orders')).toBeLessThanOrEqual(1000);
    const since = await serverNow(fx.raw);
    expect(await tokenLock.renew(fx.env, req(A, 30_000))).toBe(true);
    await expectLeaseSince(fx.raw, 'orders', 30_000, since);
    expect(await fx.raw.get('orders')).toBe(A);
  });

  it('expiry frees it: a lost lock can be neither extended nor released, and another token takes it', async () => {
    await tokenLock.tryAcquire(fx.env, req(A, 100));
    await sleep(150);
    expect(await tokenLock.renew(fx.env, req(A))).toBe(false);
    expect(await tokenLock.release(fx.env, req(A))).toBe('not-owner');
    expect((await tokenLock.tryAcquire(fx.env, req(B))).acquired).toBe(true);
    expect(await fx.raw.get('orders')).toBe(B);
  });

  it('refuses a Redisson hash and a list with a clear error, touching neither', async () => {
    await fx.raw.hset('rlock', redissonOwner(1), '1');
    await fx.raw.pexpire('rlock', 30_000);
    const rlockExpiry = await fx.raw.pexpiretime('rlock');
    await fx.raw.rpush('list', 'a');
    await expect(tokenLock.tryAcquire(fx.env, req(A, 1000, 'rlock'))).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/Redisson lock/),
    });
    await expect(tokenLock.tryAcquire(fx.env, req(A, 1000, 'list'))).rejects.toMatchObject({ exitCode: 2 });
    await expect(tokenLock.release(fx.env, req(A, 1000, 'rlock'))).rejects.toMatchObject({ exitCode: 2 });
    await expect(tokenLock.forceUnlock(fx.env, 'rlock')).rejects.toMatchObject({ exitCode: 2 });
    await expect(tokenLock.renew(fx.env, req(A, 1000, 'list'))).rejects.toMatchObject({ exitCode: 2 });
    expect(await fx.raw.hgetall('rlock')).toEqual({ [redissonOwner(1)]: '1' });
    // The same absolute expiry as before: no command re-set or dropped its TTL.
    expect(await fx.raw.pexpiretime('rlock')).toBe(rlockExpiry);
    expect(await fx.raw.lrange('list', 0, -1)).toEqual(['a']);
  });

  it('a polling waiter takes the lock within one node-redlock retry (<= 300 ms) of the release', async () => {
    await tokenLock.tryAcquire(fx.env, req(A));
    let settled = false;
    const waiting = tokenLock.acquire(fx.env, req(B), { waitMs: 3000 }).finally(() => (settled = true));
    await sleep(250);
    expect(settled).toBe(false);
    const releasedAt = Date.now();
    expect(await tokenLock.release(fx.env, req(A))).toBe('released');
    expect((await waiting).acquired).toBe(true);
    // One retry (100-300 ms apart) plus a busy machine's lateness, well inside the 3 s wait.
    expect(Date.now() - releasedAt).toBeLessThan(1000);
    expect(await fx.raw.get('orders')).toBe(B);
  });

  it('a waiter gives up after --wait and reports the holder', async () => {
    await tokenLock.tryAcquire(fx.env, req(A));
    const started = Date.now();
    const attempt = await tokenLock.acquire(fx.env, req(B), { waitMs: 500 });
    const took = Date.now() - started;
    expect(!attempt.acquired && attempt.holders).toEqual([{ owner: A, count: 1 }]);
    expect(took).toBeGreaterThanOrEqual(490);
    expect(took).toBeLessThan(900);
  });

  it('an aborted wait throws InterruptedError', async () => {
    await tokenLock.tryAcquire(fx.env, req(A));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    await expect(tokenLock.acquire(fx.env, req(B), { waitMs: 5000, signal: controller.signal })).rejects.toMatchObject({ exitCode: 130 });
    expect(await fx.raw.get('orders')).toBe(A);
  });

  it('force unlock deletes whoever holds it', async () => {
    await tokenLock.tryAcquire(fx.env, req(A));
    expect(await tokenLock.forceUnlock(fx.env, 'orders')).toBe(true);
    expect(await fx.raw.exists('orders')).toBe(0);
    expect(await tokenLock.forceUnlock(fx.env, 'orders')).toBe(false);
  });

  it("draws retry sleeps like node-redlock: 200 ms ± 100 ms jitter", () => {
    expect(nodeRedlockRetryDelay(() => 0)).toBe(100);
    expect(nodeRedlockRetryDelay(() => 0.5)).toBe(200);
    expect(nodeRedlockRetryDelay(() => 0.999_999)).toBe(299);
  });
});
