import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { MultiSemaphore, Mutex, Semaphore } from 'redis-semaphore';
import type { LockOptions } from 'redis-semaphore';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useLockServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// States written by the real redis-semaphore (5.x, on an ioredis client), read back through the
// CLI as a user would: inspect --json and ls --json. Until this file its formats were only decoded
// from hand-written fixtures (docs/lock-formats.md); here the library's own Lua writes them.

const { version } = createRequire(import.meta.url)('redis-semaphore/package.json') as { version: string };
const fx = useLockServer();
/** Short leases; the library refreshes at 0.8 × lockTimeout, which keeps the TTL within (0, LEASE]. */
const LEASE = 3000;
/** How far below LEASE a TTL may be read: the time from acquire (or the last refresh) to the snapshot. */
const SLACK = 1500;
const ms = expect.any(Number);

let client: Redis;
let env: Record<string, string | undefined>;
const lost: Error[] = [];
const held: { release(): Promise<void>; stopRefresh(): void; isAcquired: boolean }[] = [];
// Bounded waits; a lost lock is recorded instead of thrown from the refresh timer (the default).
const options: LockOptions = { lockTimeout: LEASE, acquireTimeout: 1000, retryInterval: 20, onLockLost: (err) => void lost.push(err) };

beforeAll(() => {
  client = rawClient(fx.server);
});
afterAll(() => {
  client?.disconnect();
});
beforeEach(() => {
  env = tempStateEnv({ REDIS_URL: fx.server.url });
  lost.length = 0;
});
// A failed test must not leave a refresh timer writing into the next test's keyspace.
afterEach(async () => {
  for (const lock of held.splice(0)) {
    if (lock.isAcquired) await lock.release().catch(() => undefined);
    lock.stopRefresh();
  }
  expect(lost).toEqual([]);
});

async function hold<T extends Mutex | Semaphore>(lock: T): Promise<T> {
  held.push(lock);
  await lock.acquire();
  return lock;
}

async function inspectJson(key: string) {
  const r = await runCli(['inspect', key, '--json'], env);
  return { ...r, view: (JSON.parse(r.stdout) as Record<string, unknown>[])[0]! };
}

async function lsJson() {
  const r = await runCli(['ls', '--json'], env);
  const views = JSON.parse(r.stdout) as Record<string, unknown>[];
  return { ...r, views, byKey: new Map(views.map((v) => [v.key as string, v])) };
}

/** The lease is the lockTimeout the library used, less what has run since it set it. */
function expectLease(ttlMs: unknown): void {
  expect(ttlMs).toBeGreaterThan(LEASE - SLACK);
  expect(ttlMs).toBeLessThanOrEqual(LEASE);
}

const byOwner = <T extends { owner: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => a.owner.localeCompare(b.owner));
const byId = <T extends { id: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => a.id.localeCompare(b.id));

async function expectMissing(key: string): Promise<void> {
  const r = await inspectJson(key);
  expect(r.code).toBe(4);
  expect(r.view).toMatchObject({ key, kind: 'missing', type: 'none', ttlMs: -2, holders: [], warnings: [] });
}

describe(`redis-semaphore ${version}`, () => {
  it('is the 5.x release the interop matrix names', () => {
    expect(version).toMatch(/^5\./);
  });

  it('Mutex: mutex:<name> is a token lock in redis-semaphore format, its identifier the owner, TTL = lockTimeout; released → missing (exit 4)', async () => {
    const mutex = await hold(new Mutex(client, 'orders', options));
    const r = await inspectJson('mutex:orders');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.view).toEqual({
      key: 'mutex:orders', kind: 'token', type: 'string', ttlMs: ms,
      holders: [{ owner: mutex.identifier, count: 1 }],
      value: mutex.identifier, library: 'redis-semaphore',
      waiters: 0, warnings: [], readAt: ms,
    });
    expectLease(r.view.ttlMs);
    // The name we inspected is the key the library contends on: a second Mutex cannot take it.
    expect(await new Mutex(client, 'orders', { ...options, acquireAttemptsLimit: 1 }).tryAcquire()).toBe(false);
    await mutex.release();
    await expectMissing('mutex:orders');
  });

  it('Semaphore (limit 3, two holders): rs-semaphore, one holder and one live permit each, lease = lockTimeout; each release drops its holder, the last → missing', async () => {
    const a = await hold(new Semaphore(client, 'jobs', 3, options));
    const b = await hold(new Semaphore(client, 'jobs', 3, options));
    const r = await inspectJson('semaphore:jobs');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.view).toEqual({
      key: 'semaphore:jobs', kind: 'rs-semaphore', type: 'zset', ttlMs: ms,
      holders: expect.any(Array), permits: expect.any(Array),
      waiters: 0, warnings: [], readAt: ms,
    });
    expectLease(r.view.ttlMs);
    const holders = r.view.holders as { owner: string; count: number }[];
    expect(byOwner(holders)).toEqual(byOwner([{ owner: a.identifier, count: 1 }, { owner: b.identifier, count: 1 }]));
    const permits = r.view.permits as { id: string; expiresInMs: number; expired: boolean }[];
    expect(byId(permits)).toEqual(byId([a, b].map((s) => ({ id: s.identifier, expiresInMs: ms, expired: false }))));
    for (const p of permits) expectLease(p.expiresInMs);

    await a.release();
    const one = await inspectJson('semaphore:jobs');
    expect(one.view).toMatchObject({ kind: 'rs-semaphore', holders: [{ owner: b.identifier, count: 1 }], permits: [{ id: b.identifier, expired: false }], warnings: [] });
    await b.release();
    await expectMissing('semaphore:jobs');
  });

  it('MultiSemaphore (limit 3, 2 permits): one holder counted twice, permits <id>_0 and <id>_1, lease = lockTimeout; released → missing', async () => {
    const multi = await hold(new MultiSemaphore(client, 'pool', 3, 2, options));
    const r = await inspectJson('semaphore:pool');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.view).toEqual({
      key: 'semaphore:pool', kind: 'rs-semaphore', type: 'zset', ttlMs: ms,
      holders: [{ owner: multi.identifier, count: 2 }],
      permits: [0, 1].map((i) => ({ id: `${multi.identifier}_${i}`, expiresInMs: ms, expired: false })),
      waiters: 0, warnings: [], readAt: ms,
    });
    expectLease(r.view.ttlMs);
    for (const p of r.view.permits as { expiresInMs: number }[]) expectLease(p.expiresInMs);
    // The 2 permits we report are what the library counts: only 1 of the 3 is left for others.
    expect(await new MultiSemaphore(client, 'pool', 3, 2, { ...options, acquireAttemptsLimit: 1 }).tryAcquire()).toBe(false);
    await multi.release();
    await expectMissing('semaphore:pool');
  });

  it('ls --json lists all three with their kinds and holders, and stops listing each once the library releases it', async () => {
    const mutex = await hold(new Mutex(client, 'orders', options));
    const a = await hold(new Semaphore(client, 'jobs', 3, options));
    const b = await hold(new Semaphore(client, 'jobs', 3, options));
    const multi = await hold(new MultiSemaphore(client, 'pool', 3, 2, options));

    const all = await lsJson();
    expect([all.code, all.stderr]).toEqual([0, '']);
    expect([...all.byKey.keys()].sort()).toEqual(['mutex:orders', 'semaphore:jobs', 'semaphore:pool']);
    expect(all.byKey.get('mutex:orders')).toMatchObject({ kind: 'token', library: 'redis-semaphore', holders: [{ owner: mutex.identifier, count: 1 }], warnings: [] });
    const jobs = all.byKey.get('semaphore:jobs')!;
    expect(jobs).toMatchObject({ kind: 'rs-semaphore', warnings: [] });
    expect(byOwner(jobs.holders as { owner: string }[])).toEqual(byOwner([{ owner: a.identifier, count: 1 }, { owner: b.identifier, count: 1 }]));
    expect(all.byKey.get('semaphore:pool')).toMatchObject({ kind: 'rs-semaphore', holders: [{ owner: multi.identifier, count: 2 }], warnings: [] });
    for (const v of all.views) expectLease(v.ttlMs);

    await mutex.release();
    expect([...(await lsJson()).byKey.keys()].sort()).toEqual(['semaphore:jobs', 'semaphore:pool']);
    await a.release();
    await b.release();
    expect([...(await lsJson()).byKey.keys()]).toEqual(['semaphore:pool']);
    await multi.release();
    const none = await lsJson();
    expect([none.code, none.stdout, none.stderr]).toEqual([0, '[]\n', 'no locks match *\n']);
  });
});
