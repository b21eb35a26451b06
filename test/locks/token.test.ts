import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OpenLockEnv } from '../../src/locks/env.js';
import { newOwner } from '../../src/locks/owners.js';
import { nodeRedlockRetryDelay, tokenLock } from '../../src/locks/token.js';
import { deleteStrategy } from '../../src/redis/compare-and-delete.js';
import { owner as redissonOwner, rawClient, testEnv } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

let server: RedisServer;
let env: OpenLockEnv;
let raw: Redis;

beforeAll(async () => {
  server = await startRedis();
  env = await testEnv(server);
  raw = rawClient(server);
});
afterAll(async () => {
  raw?.disconnect();
  await env?.close();
  await server?.stop();
});
beforeEach(async () => {
  await raw.flushall();
});

const A = newOwner(tokenLock);
const B = newOwner(tokenLock);
const req = (owner: string, leaseMs = 10_000, key = 'orders') => ({ key, owner, leaseMs });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** EVAL + EVALSHA calls the server has run so far (INFO commandstats). */
async function scriptCalls(): Promise<number> {
  const info = await raw.info('commandstats');
  return [...info.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
}

describe('token (node-redlock / redsync / redis-py single key)', () => {
  it('writes node-redlock layout: a string holding a 32-hex token, with PX lease', async () => {
    expect(A).toMatch(/^[0-9a-f]{32}$/);
    expect(await tokenLock.tryAcquire(env, req(A, 5000))).toEqual({ acquired: true, count: 1 });
    expect(await raw.type('orders')).toBe('string');
    expect(await raw.get('orders')).toBe(A);
    const pttl = await raw.pttl('orders');
    expect(pttl).toBeGreaterThan(4900);
    expect(pttl).toBeLessThanOrEqual(5000);
  });

  it('refuses another token and reports the holder value and TTL', async () => {
    await tokenLock.tryAcquire(env, req(A, 5000));
    const attempt = await tokenLock.tryAcquire(env, req(B));
    expect(attempt.acquired).toBe(false);
    if (attempt.acquired) return;
    expect(attempt.holders).toEqual([{ owner: A, count: 1 }]);
    expect(attempt.ttlMs).toBeGreaterThan(4900);
    expect(attempt.ttlMs).toBeLessThanOrEqual(5000);
    expect(await raw.get('orders')).toBe(A);
  });

  it('does not re-enter: the same token is refused while held and the TTL is not reset (node-redlock checks EXISTS)', async () => {
    await tokenLock.tryAcquire(env, req(A, 2000));
    const again = await tokenLock.tryAcquire(env, req(A, 60_000));
    expect(again.acquired).toBe(false);
    expect(!again.acquired && again.holders).toEqual([{ owner: A, count: 1 }]);
    expect(await raw.pttl('orders')).toBeLessThanOrEqual(2000);
  });

  it('reports a hand-written lock without TTL as ttl -1', async () => {
    await raw.set('orders', 'by-hand');
    const attempt = await tokenLock.tryAcquire(env, req(A));
    expect(attempt).toEqual({ acquired: false, ttlMs: -1, holders: [{ owner: 'by-hand', count: 1 }] });
  });

  it('compare-and-delete (Lua fallback on Redis 7.0): a wrong token is refused and the key kept', async () => {
    expect(await deleteStrategy(env.conn.client)).toBe('lua');
    await tokenLock.tryAcquire(env, req(A));
    const before = await scriptCalls();
    expect(await tokenLock.release(env, req(B))).toBe('not-owner');
    expect(await raw.get('orders')).toBe(A);
    expect(await tokenLock.release(env, req(A))).toBe('released');
    expect(await raw.exists('orders')).toBe(0);
    expect(await tokenLock.release(env, req(A))).toBe('not-owner');
    // Three releases, three scripts: no native command was used on this server.
    expect((await scriptCalls()) - before).toBe(3);
  });

  it('extends only with the right token, re-setting PX to the new lease', async () => {
    await tokenLock.tryAcquire(env, req(A, 1000));
    expect(await tokenLock.renew(env, req(B, 30_000))).toBe(false);
    expect(await raw.pttl('orders')).toBeLessThanOrEqual(1000);
    expect(await tokenLock.renew(env, req(A, 30_000))).toBe(true);
    expect(await raw.pttl('orders')).toBeGreaterThan(29_000);
    expect(await raw.get('orders')).toBe(A);
  });

  it('expiry frees it: a lost lock can be neither extended nor released, and another token takes it', async () => {
    await tokenLock.tryAcquire(env, req(A, 100));
    await sleep(150);
    expect(await tokenLock.renew(env, req(A))).toBe(false);
    expect(await tokenLock.release(env, req(A))).toBe('not-owner');
    expect((await tokenLock.tryAcquire(env, req(B))).acquired).toBe(true);
    expect(await raw.get('orders')).toBe(B);
  });

  it('refuses a Redisson hash and a list with a clear error, touching neither', async () => {
    await raw.hset('rlock', redissonOwner(1), '1');
    await raw.pexpire('rlock', 30_000);
    await raw.rpush('list', 'a');
    await expect(tokenLock.tryAcquire(env, req(A, 1000, 'rlock'))).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/Redisson lock/),
    });
    await expect(tokenLock.tryAcquire(env, req(A, 1000, 'list'))).rejects.toMatchObject({ exitCode: 2 });
    await expect(tokenLock.release(env, req(A, 1000, 'rlock'))).rejects.toMatchObject({ exitCode: 2 });
    await expect(tokenLock.forceUnlock(env, 'rlock')).rejects.toMatchObject({ exitCode: 2 });
    expect(await tokenLock.renew(env, req(A, 1000, 'list'))).toBe(false);
    expect(await raw.hgetall('rlock')).toEqual({ [redissonOwner(1)]: '1' });
    expect(await raw.pttl('rlock')).toBeGreaterThan(29_000);
    expect(await raw.lrange('list', 0, -1)).toEqual(['a']);
  });

  it('a polling waiter takes the lock within one node-redlock retry (<= 300 ms) of the release', async () => {
    await tokenLock.tryAcquire(env, req(A));
    let settled = false;
    const waiting = tokenLock.acquire(env, req(B), { waitMs: 3000 }).finally(() => (settled = true));
    await sleep(250);
    expect(settled).toBe(false);
    const releasedAt = Date.now();
    expect(await tokenLock.release(env, req(A))).toBe('released');
    expect((await waiting).acquired).toBe(true);
    expect(Date.now() - releasedAt).toBeLessThan(400);
    expect(await raw.get('orders')).toBe(B);
  });

  it('a waiter gives up after --wait and reports the holder', async () => {
    await tokenLock.tryAcquire(env, req(A));
    const started = Date.now();
    const attempt = await tokenLock.acquire(env, req(B), { waitMs: 500 });
    const took = Date.now() - started;
    expect(!attempt.acquired && attempt.holders).toEqual([{ owner: A, count: 1 }]);
    expect(took).toBeGreaterThanOrEqual(490);
    expect(took).toBeLessThan(900);
  });

  it('an aborted wait throws InterruptedError', async () => {
    await tokenLock.tryAcquire(env, req(A));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    await expect(tokenLock.acquire(env, req(B), { waitMs: 5000, signal: controller.signal })).rejects.toMatchObject({ exitCode: 130 });
    expect(await raw.get('orders')).toBe(A);
  });

  it('force unlock deletes whoever holds it', async () => {
    await tokenLock.tryAcquire(env, req(A));
    expect(await tokenLock.forceUnlock(env, 'orders')).toBe(true);
    expect(await raw.exists('orders')).toBe(0);
    expect(await tokenLock.forceUnlock(env, 'orders')).toBe(false);
  });

  it("draws retry sleeps like node-redlock: 200 ms ± 100 ms jitter", () => {
    expect(nodeRedlockRetryDelay(() => 0)).toBe(100);
    expect(nodeRedlockRetryDelay(() => 0.5)).toBe(200);
    expect(nodeRedlockRetryDelay(() => 0.999_999)).toBe(299);
  });
});
