import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { rwTimeoutPrefix, suffixName } from '../../src/core/names.js';
import { fairLock } from '../../src/locks/fair.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { readLock } from '../../src/locks/rw.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const fx = useLockServer();
let env: Record<string, string | undefined>;
beforeEach(() => {
  env = tempStateEnv({ REDIS_URL: fx.server.url });
});

const req = (key: string, n: number, leaseMs = 10_000) => ({ key, owner: owner(n), leaseMs });
const client = (n: number) => owner(n).slice(0, 36);
const ms = expect.any(Number);
async function inspectJson(...args: string[]) {
  const r = await runCli(['inspect', ...args, '--json'], env);
  return { ...r, views: JSON.parse(r.stdout) as Record<string, unknown>[] };
}

describe('inspect --json: one array, every field of every kind', () => {
  it('reentrant and fenced', async () => {
    await hashLock('reentrant').tryAcquire(fx.env, req('r', 1));
    await hashLock('fenced').tryAcquire(fx.env, req('f', 2));
    const { code, views } = await inspectJson('r', 'f');
    expect(code).toBe(0);
    const holder = (n: number) => ({ owner: owner(n), client: client(n), thread: '1', count: 1 });
    expect(views).toEqual([
      { key: 'r', kind: 'reentrant', possibleKinds: ['reentrant', 'fair'], type: 'hash', ttlMs: ms, holders: [holder(1)], waiters: 0, warnings: [], readAt: ms },
      { key: 'f', kind: 'fenced', type: 'hash', ttlMs: ms, holders: [holder(2)], token: 1, waiters: 0, warnings: [], readAt: ms },
    ]);
  });

  it('fair, with an overdue waiter', async () => {
    const fair = fairLock({ threadWaitMs: 50 });
    await fair.tryAcquire(fx.env, req('q', 1, 100));
    await fair.queuedAttempt(fx.env, req('q', 2), 0);
    await fair.renew(fx.env, req('q', 1, 10_000));
    await new Promise((r) => setTimeout(r, 250));
    const { views } = await inspectJson('q');
    expect(views[0]).toEqual({
      key: 'q', kind: 'fair', type: 'hash', ttlMs: ms,
      holders: [{ owner: owner(1), client: client(1), thread: '1', count: 1 }],
      queue: [{ owner: owner(2), position: 0, deadlineInMs: ms, expectedWaitMs: ms, subscribers: 0 }],
      waiters: 0,
      warnings: [{ code: 'overdue-waiter', severity: 'warning', message: expect.stringContaining('purged at the next attempt') }],
      readAt: ms,
    });
    expect((views[0]!.queue as { deadlineInMs: number }[])[0]!.deadlineInMs).toBeLessThan(0);
  });

  it('rw, with a zombie reader', async () => {
    await readLock().tryAcquire(fx.env, req('rw', 1));
    await readLock().tryAcquire(fx.env, req('rw', 2, 50));
    await new Promise((r) => setTimeout(r, 100));
    const { views } = await inspectJson('rw');
    expect(views[0]).toEqual({
      key: 'rw', kind: 'rw', type: 'hash', ttlMs: ms,
      holders: [
        { owner: owner(1), client: client(1), thread: '1', count: 1 },
        { owner: owner(2), client: client(2), thread: '1', count: 1 },
      ],
      mode: 'read',
      readers: [
        { owner: owner(1), client: client(1), thread: '1', count: 1, timeoutKeys: [{ key: `${rwTimeoutPrefix('rw', owner(1))}:1`, ttlMs: ms }], zombie: false },
        { owner: owner(2), client: client(2), thread: '1', count: 1, timeoutKeys: [], zombie: true },
      ],
      orphanTimeoutKeys: [],
      waiters: 0,
      warnings: [{ code: 'zombie-reader', severity: 'warning', message: expect.stringContaining(`reader ${owner(2)} (1 hold)`) }],
      readAt: ms,
    });
  });

  it('token, semaphore, latch (by --kind), expirable semaphore, not a lock, missing (exit 4)', async () => {
    const token = randomBytes(16).toString('hex');
    await fx.raw.set('t', token, 'PX', 5000);
    await fx.raw.set('s', '3');
    await fx.raw.set('pes', '0');
    const id = randomBytes(16);
    await fx.raw.zadd(suffixName('pes', 'timeout'), '922337203685477', id);
    await fx.raw.rpush('list', 'a', 'b');
    const { code, views } = await inspectJson('t', 's', 'pes', 'list', 'gone');
    expect(code).toBe(4);
    expect(views).toEqual([
      { key: 't', kind: 'token', type: 'string', ttlMs: ms, holders: [{ owner: token, count: 1 }], value: token, library: 'node-redlock', waiters: 0, warnings: [], readAt: ms },
      {
        key: 's', kind: 'semaphore', possibleKinds: ['semaphore', 'latch'], type: 'string', ttlMs: -1, holders: [], available: 3, waiters: 0,
        warnings: [{ code: 'ambiguous-kind', severity: 'info', message: 'read as a semaphore; the same data could be another kind: --kind latch' }],
        readAt: ms,
      },
      {
        key: 'pes', kind: 'expirable-semaphore', type: 'string', ttlMs: -1, holders: [], available: 0,
        permits: [{ id: id.toString('hex'), expiresInMs: null, expired: false }], waiters: 0, warnings: [], readAt: ms,
      },
      { key: 'list', kind: 'not-a-lock', type: 'list', ttlMs: -1, holders: [], size: 2, waiters: 0, warnings: [], readAt: ms },
      { key: 'gone', kind: 'missing', type: 'none', ttlMs: -2, holders: [], waiters: 0, warnings: [], readAt: ms },
    ]);
    const latch = await inspectJson('s', '--kind', 'latch');
    expect(latch.views[0]).toMatchObject({ kind: 'latch', count: 3, warnings: [] });
  });

  it('a key without TTL: the error is in warnings, the exit code stays 0', async () => {
    await fx.raw.hset('stuck', owner(1), '1');
    const { code, views } = await inspectJson('stuck');
    expect(code).toBe(0);
    expect(views[0]!.warnings).toEqual([{ code: 'no-ttl', severity: 'error', message: expect.stringContaining('no TTL: will never expire') }]);
  });
});

describe('inspect as text', () => {
  it('one block per key on stdout; a missing key is said on stderr and exits 4', async () => {
    await hashLock('reentrant').tryAcquire(fx.env, req('orders', 1));
    await hashLock('reentrant').tryAcquire(fx.env, req('orders', 1));
    const r = await runCli(['inspect', 'orders', 'gone'], env);
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(new RegExp(
      `^orders  Redisson lock \\(reentrant or fair: no queue to tell\\), expires in \\d+\\.\\d s\\n  holder    ${client(1)} thread 1, 2 holds\\n  waiters   0 subscribed to its channel\\n$`,
    ));
    expect(r.stderr).toBe('gone  does not exist\n');
  });

  it('a fair queue as a table with deadlines, expected waits and who listens', async () => {
    const fair = fairLock();
    await fair.tryAcquire(fx.env, req('q', 1, 30_000));
    await fair.queuedAttempt(fx.env, req('q', 2), 5000);
    const r = await runCli(['inspect', 'q'], env);
    const lines = r.stdout.split('\n');
    expect(lines[2]).toBe('  queue     #  waiter                                         deadline   expected wait  listening');
    expect(lines[3]).toMatch(new RegExp(`^            1  ${client(2)} thread 1  in 3\\d\\.\\d s  [23]\\d\\.\\d s         no$`));
  });
});

describe('inspect input errors', () => {
  it('an unknown --kind is a usage error (exit 2) before connecting', async () => {
    const r = await runCli(['inspect', 'x', '--kind', 'mutex', '--url', 'redis://127.0.0.1:1'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown kind "mutex"/);
  });

  it('Redis unreachable: exit 3 naming host:port', async () => {
    const r = await runCli(['inspect', 'x', '--url', 'redis://127.0.0.1:1'], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/127\.0\.0\.1:1/);
  });
});
