import { describe, expect, it } from 'vitest';
import { fairQueueKey, fairTimeoutKey } from '../../src/core/names.js';
import { fairLock } from '../../src/locks/fair.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Fair-queue states built with our engine's Redisson protocol on a real server and read back as
// `inspect --json` (the documented shape users script against), including the half-written
// states a crashed client leaves: a queue entry without a deadline, a deadline without an entry.

const fx = useLockServer();
const req = (key: string, n: number, leaseMs = 30_000) => ({ key, owner: owner(n), leaseMs });

interface QueueEntry {
  readonly owner: string;
  readonly position: number;
  readonly deadlineInMs: number | null;
  readonly expectedWaitMs?: number;
}
interface View {
  readonly kind: string;
  readonly ttlMs: number;
  readonly holders: { owner: string; count: number }[];
  readonly queue: QueueEntry[];
  readonly warnings: { code: string; severity: string; message: string }[];
}

async function inspectJson(key: string, ...extra: string[]): Promise<View> {
  const out = await runCli(['inspect', key, '--json', ...extra], tempStateEnv({ REDIS_URL: fx.server.url }));
  expect(out.code, out.stderr).toBe(0);
  return (JSON.parse(out.stdout) as View[])[0]!;
}

describe('fair queues from our engine, through inspect --json', () => {
  it('1,000 waiters queued by the protocol: every position, deadline and expected wait', async () => {
    const fair = fairLock();
    const waitMs = 5000;
    // A lease far longer than the test: what is asserted is relative to the lease left at the read.
    await fair.tryAcquire(fx.env, req('q1000', 0, 600_000));
    // One connection keeps the arrival order: the server queues them as they were sent. The first
    // waiter's deadline is computed from the client's clock when its attempt was made (Redisson
    // sends its own "now"), so the span of that first batch bounds how far it can lag the server.
    let firstBatchMs = 0;
    for (let i = 1; i <= 1000; i += 100) {
      const sentAt = Date.now();
      await Promise.all(Array.from({ length: 100 }, (_, j) => fair.queuedAttempt(fx.env, req('q1000', i + j), waitMs)));
      if (i === 1) firstBatchMs = Date.now() - sentAt;
    }
    const v = await inspectJson('q1000');
    expect(v).toMatchObject({ kind: 'fair', holders: [{ owner: owner(0), count: 1 }], warnings: [] });
    expect(v.queue.map((q) => [q.owner, q.position])).toEqual(Array.from({ length: 1000 }, (_, i) => [owner(i + 1), i]));
    // Redisson: the first waiter's deadline is the holder's expiry plus its wait; each next one a
    // wait later. Both are read in one snapshot, so however long the queueing and the CLI's start
    // took, the first deadline is the lease left at the read plus the wait, less that client lag.
    expect(v.ttlMs).toBeGreaterThan(0);
    expect(v.queue[0]!.deadlineInMs).toBeLessThanOrEqual(v.ttlMs + waitMs);
    expect(v.queue[0]!.deadlineInMs).toBeGreaterThanOrEqual(v.ttlMs + waitMs - firstBatchMs);
    for (let i = 1; i < 1000; i++) expect(v.queue[i]!.deadlineInMs! - v.queue[i - 1]!.deadlineInMs!, `waiter ${i}`).toBe(waitMs);
    expect(v.queue[0]!.expectedWaitMs).toBe(v.ttlMs);
    for (let i = 1; i < 1000; i++) expect(v.queue[i]!.expectedWaitMs, `waiter ${i}`).toBe(v.queue[i - 1]!.deadlineInMs);
    // Its bound, not a timing: at load 20+ the first inspect alone (loading the command's modules,
    // reading and decoding 1,000 waiters) measured 12 s of the default 20.
  }, 60_000);

  it('a queue entry whose deadline is gone, and a deadline whose queue entry is gone', async () => {
    const fair = fairLock();
    await fair.tryAcquire(fx.env, req('half', 1));
    await fair.queuedAttempt(fx.env, req('half', 2), 5000);
    await fair.queuedAttempt(fx.env, req('half', 3), 5000);
    // A client that crashed between the two writes of its enqueue or dequeue leaves one of each.
    await fx.raw.zrem(fairTimeoutKey('half'), owner(2));
    await fx.raw.lrem(fairQueueKey('half'), 0, owner(3));
    const v = await inspectJson('half');
    expect(v.queue).toEqual([expect.objectContaining({ owner: owner(2), position: 0, deadlineInMs: null })]);
    expect(v.warnings.map((w) => [w.code, w.severity])).toEqual([
      ['queue-entry-without-deadline', 'error'],
      ['deadline-without-queue-entry', 'warning'],
    ]);
    expect(v.warnings[0]!.message).toContain(owner(2));
    expect(v.warnings[1]!.message).toContain(owner(3));
  });
});

describe('a spin lock from our engine', () => {
  it('reads as the Redisson lock hash it is, also when asked for --kind spin', async () => {
    await hashLock('spin').tryAcquire(fx.env, req('spinning', 1, 20_000));
    await hashLock('spin').tryAcquire(fx.env, req('spinning', 1, 20_000));
    for (const v of [await inspectJson('spinning'), await inspectJson('spinning', '--kind', 'spin')]) {
      expect(v).toMatchObject({ kind: 'reentrant', holders: [{ owner: owner(1), count: 2 }], warnings: [] });
      expect(v.ttlMs).toBeGreaterThan(18_000);
      expect(v.ttlMs).toBeLessThanOrEqual(20_000);
    }
  });
});
