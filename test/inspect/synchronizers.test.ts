import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { suffixName } from '../../src/core/names.js';
import { latchChannel, semaphoreChannel } from '../../src/inspect/keys.js';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { useLockServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';

// We have no engine for these: each state is written with the commands Redisson's (or
// redis-semaphore's) scripts run (docs/redisson-protocol.md §2.7-2.9, docs/lock-formats.md).

const fx = useLockServer();
const inspectOne = async (key: string) => (await inspectKeys(fx.env.conn, [key]))[0]!;

async function subscriber(channel: string) {
  const sub = rawClient(fx.server);
  await sub.subscribe(channel);
  return sub;
}

describe('Redisson synchronizers', () => {
  it('semaphore: trySetPermits(3) then tryAcquire(1) leaves 2; a blocked acquire() is a waiter', async () => {
    await fx.raw.set('sem', '3');
    await fx.raw.decrby('sem', 1);
    const sub = await subscriber(semaphoreChannel('sem'));
    const v = await inspectOne('sem');
    sub.disconnect();
    expect(v).toMatchObject({ kind: 'semaphore', type: 'string', ttlMs: -1, available: 2, holders: [], waiters: 1, warnings: [] });
  });

  it('count-down latch: trySetCount(2), countDown(); an await() subscribes to the latch channel', async () => {
    await fx.raw.set('latch', '2');
    await fx.raw.decr('latch');
    const sub = await subscriber(latchChannel('latch'));
    const v = await inspectOne('latch');
    sub.disconnect();
    expect(v).toMatchObject({ kind: 'latch', count: 1, waiters: 1, warnings: [] });
  });

  it('permit-expirable semaphore: raw 16-byte ids hex-encoded, an expired permit flagged', async () => {
    const live = randomBytes(16);
    const dead = randomBytes(16);
    const now = Date.now();
    await fx.raw.set('pes', '1');
    await fx.raw.zadd(suffixName('pes', 'timeout'), now + 60_000, live, now - 1500, dead);
    const v = await inspectOne('pes');
    expect(v).toMatchObject({ kind: 'expirable-semaphore', available: 1 });
    const permits = new Map(v.permits!.map((p) => [p.id, p]));
    expect(permits.get(live.toString('hex'))).toMatchObject({ expired: false });
    expect(permits.get(dead.toString('hex'))!.expired).toBe(true);
    expect(permits.get(dead.toString('hex'))!.expiresInMs).toBeLessThan(-1000);
    expect(v.warnings.map((w) => w.code)).toEqual(['expired-permit']);
  });

  it('redis-semaphore Semaphore: members scored with the client clock, key PEXPIREd to lockTimeout', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await fx.raw.zadd('semaphore:jobs', Date.now(), a, Date.now() - 20_000, b);
    await fx.raw.pexpire('semaphore:jobs', 10_000);
    const v = await inspectOne('semaphore:jobs');
    expect(v.kind).toBe('rs-semaphore');
    expect(v.holders).toEqual([{ owner: a, count: 1 }]);
    expect(v.permits!.find((p) => p.id === b)!.expired).toBe(true);
  });
});
