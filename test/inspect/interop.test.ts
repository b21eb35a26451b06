import { Redisson } from 'node-redisson';
import { TimeUnit } from 'node-redisson/dist/utils/TimeUnit.js';
import Redlock from 'redlock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { useLockServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';

// States written by third-party clients, read back by inspect: node-redisson (Redisson's RLock
// protocol in Node) and node-redlock v5 (token lock).

const fx = useLockServer();
const MS = TimeUnit.MILLISECONDS;
let holder: Redisson;
let waiter: Redisson;
let redlock: Redlock;

beforeAll(() => {
  const options = { redis: { options: { host: '127.0.0.1', port: fx.server.port } } };
  holder = new Redisson(options);
  waiter = new Redisson(options);
  redlock = new Redlock([rawClient(fx.server)], { retryCount: 0 });
});
afterAll(async () => {
  await holder?.quit();
  await waiter?.quit();
  for (const c of redlock?.clients ?? []) c.disconnect();
});

async function inspectUntil(key: string, ok: (waiters: number) => boolean) {
  for (let i = 0; i < 100; i++) {
    const [v] = await inspectKeys(fx.env.conn, [key]);
    if (ok(v!.waiters)) return v!;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${key} never reached the expected state`);
}

describe('node-redisson', () => {
  it('its holder field decodes to its instance id and client id; its waiting tryLock is a waiter', async () => {
    const theirs = holder.getLock('orders');
    await theirs.lock(10_000, MS);
    const waiting = waiter.getLock('orders').tryLock(3000, 10_000, MS);
    const v = await inspectUntil('orders', (w) => w === 1);
    const [field] = Object.keys(await fx.raw.hgetall('orders'));
    expect(v).toMatchObject({ kind: 'reentrant', waiters: 1, warnings: [] });
    expect(v.holders).toEqual([{ owner: field, client: field!.slice(0, 36), thread: theirs.clientId, count: 1 }]);
    expect(v.ttlMs).toBeGreaterThan(9000);
    await theirs.unlock();
    expect(await waiting).toBe(true);
    await waiter.getLock('orders').forceUnlock();
  });
});

describe('node-redlock', () => {
  it('its lock is a token lock in node-redlock format, with its value as owner and its TTL', async () => {
    const lock = await redlock.acquire(['job:42'], 5000);
    const [v] = await inspectKeys(fx.env.conn, ['job:42']);
    expect(v).toMatchObject({ kind: 'token', type: 'string', value: lock.value, library: 'node-redlock', holders: [{ owner: lock.value, count: 1 }], waiters: 0, warnings: [] });
    expect(v!.ttlMs).toBeGreaterThan(4000);
    await lock.release();
    expect((await inspectKeys(fx.env.conn, ['job:42']))[0]!.kind).toBe('missing');
  });
});
