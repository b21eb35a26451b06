import { describe, expect, it } from 'vitest';
import { fairLock } from '../../src/locks/fair.js';
import type { Attempt, LockEnv } from '../../src/locks/types.js';
import { owner, rawClient, recordChannel, testEnv } from '../helpers/lock-env.js';
import { useLockServer } from '../helpers/fixture.js';

const fx = useLockServer();

const fair = fairLock();
const KEY = 'orders';
const QUEUE = 'redisson_lock_queue:{orders}';
const TIMEOUTS = 'redisson_lock_timeout:{orders}';
const channelOf = (n: number): string => `redisson_lock__channel:{orders}:${owner(n)}`;
const req = (n: number, leaseMs = 10_000, key = KEY) => ({ key, owner: owner(n), leaseMs });
/** The same connection with a frozen clock: deadlines become exact numbers. */
const at = (now: number): LockEnv => ({ ...fx.env, now: () => now });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting until ${what}`);
    await sleep(5);
  }
}

/** A waiter is parked once it is queued and listening on its own channel. */
const parked = (n: number) =>
  waitUntil(`waiter ${n} is parked`, async () => {
    const [, subscribers] = (await fx.raw.pubsub('NUMSUB', channelOf(n))) as [string, number];
    return subscribers === 1 && (await fx.raw.lpos(QUEUE, owner(n))) !== null;
  });

const queue = () => fx.raw.lrange(QUEUE, 0, -1);
const deadline = async (n: number) => Number(await fx.raw.zscore(TIMEOUTS, owner(n)));
/** A refusal reported the lock's own PTTL: at most the lease, at least what is left now. */
async function expectLockPttlReported(reported: number, leaseMs: number): Promise<void> {
  expect(reported).toBeLessThanOrEqual(leaseMs);
  expect(reported).toBeGreaterThanOrEqual(await fx.raw.pttl(KEY));
}
const ttlOf = (a: Attempt): number => {
  if (a.acquired) throw new Error('expected a refusal');
  return a.ttlMs;
};

describe('fair (Redisson RFairLock)', () => {
  it('wakes several waiters in FIFO order, each by the message on its own channel, not its timer', async () => {
    const rec = await recordChannel(fx.server, 'redisson_lock__channel*');
    await fair.tryAcquire(fx.env, req(1));
    const order: number[] = [];
    const waiters = new Map<number, Promise<Attempt>>();
    for (const n of [2, 3, 4]) {
      waiters.set(n, fair.acquire(fx.env, req(n), { waitMs: 5000 }).then((a) => (order.push(n), a)));
      await parked(n);
    }
    expect(await queue()).toEqual([owner(2), owner(3), owner(4)]);
    for (const [from, to] of [[1, 2], [2, 3], [3, 4]] as const) {
      const releasedAt = Date.now();
      expect(await fair.release(fx.env, req(from))).toBe('released');
      expect(await waiters.get(to)).toEqual({ acquired: true, count: 1 });
      // Timers are ~10 s: only the message to its own channel can wake it this fast, also on a busy machine.
      expect(Date.now() - releasedAt).toBeLessThan(3000);
      expect(order).toEqual([2, 3, 4].slice(0, to - 1));
    }
    await fair.release(fx.env, req(4));
    await sleep(30);
    rec.close();
    expect(rec.messages.map((m) => [m.channel, m.message])).toEqual([
      [channelOf(2), '0'],
      [channelOf(3), '0'],
      [channelOf(4), '0'],
    ]);
    expect(await fx.raw.exists(KEY, QUEUE, TIMEOUTS)).toBe(0);
  });

  it('writes the Redisson layout: LIST and ZSET of <uuid>:<thread>, absolute deadlines, no TTL on the queue keys', async () => {
    const t = Date.now();
    await fair.tryAcquire(at(t), req(1, 30_000));
    const ttl2 = ttlOf(await fair.queuedAttempt(at(t), req(2), 5000));
    const ttl3 = ttlOf(await fair.queuedAttempt(at(t), req(3), 5000));
    expect(await fx.raw.type(QUEUE)).toBe('list');
    expect(await fx.raw.type(TIMEOUTS)).toBe('zset');
    expect(await queue()).toEqual([owner(2), owner(3)]);
    expect(await fx.raw.zrange(TIMEOUTS, 0, -1, 'WITHSCORES')).toEqual([
      owner(2), String(t + ttl2 + 5000),
      owner(3), String(t + ttl2 + 10_000),
    ]);
    expect(ttl3).toBe(ttl2 + 5000);
    expect(await fx.raw.pttl(QUEUE)).toBe(-1);
    expect(await fx.raw.pttl(TIMEOUTS)).toBe(-1);
    expect(await fx.raw.hgetall(KEY)).toEqual({ [owner(1)]: '1' });
    // Renewal touches only the hash.
    expect(await fair.renew(fx.env, req(1, 60_000))).toBe(true);
    expect(await fx.raw.pttl(KEY)).toBeGreaterThan(59_000);
    expect(await fx.raw.pttl(QUEUE)).toBe(-1);
    expect(await fair.renew(fx.env, req(2, 60_000))).toBe(false);
  });

  it('estimates 30000/35000/40000/45000 for successive waiters and handles a leaver (testAcquireFailedTimeoutDrift_Descrete)', async () => {
    // One client clock for the four attempts (as if they ran at the same instant): each estimate is
    // then the lock's PTTL plus 5 s per waiter ahead, exactly, however late this process runs.
    const t = Date.now();
    await fair.tryAcquire(at(t), req(1, 30_000));
    const ttls: number[] = [];
    for (const n of [2, 3, 4, 5]) ttls.push(ttlOf(await fair.queuedAttempt(at(t), req(n, 30_000), 5000)));
    expect(ttls[0]).toBeLessThanOrEqual(30_000);
    expect(ttls[0]).toBeGreaterThanOrEqual(await fx.raw.pttl(KEY));
    expect(ttls.map((ttl) => ttl - ttls[0]!)).toEqual([0, 5000, 10_000, 15_000]);
    const before = [await deadline(4), await deadline(5)];
    expect(await fair.acquireFailed(fx.env, req(3), 5000)).toBe(true);
    expect(await queue()).toEqual([owner(2), owner(4), owner(5)]);
    expect(await fx.raw.zscore(TIMEOUTS, owner(3))).toBeNull();
    expect([await deadline(4), await deadline(5)]).toEqual([before[0]! - 5000, before[1]! - 5000]);
    // Already queued: a retry reports the lock's PTTL, not the queue position.
    for (const n of [2, 4, 5]) await expectLockPttlReported(ttlOf(await fair.queuedAttempt(fx.env, req(n, 30_000), 5000)), 30_000);
    expect(await fair.release(fx.env, req(1))).toBe('released');
    // Free, but 2 is first: 4 is refused with 0 (no lock left to wait for, only its turn).
    expect(await fair.queuedAttempt(fx.env, req(4, 30_000), 5000)).toEqual({ acquired: false, ttlMs: 0, holders: [] });
    expect(await fair.queuedAttempt(fx.env, req(2, 30_000), 5000)).toEqual({ acquired: true, count: 1 });
    for (const n of [4, 5]) await expectLockPttlReported(ttlOf(await fair.queuedAttempt(fx.env, req(n, 30_000), 5000)), 30_000);
  });

  it('moves every remaining deadline up by exactly the wait when the head acquires (testLockAcquiredTimeoutDrift_Descrete)', async () => {
    const t = Date.now();
    await fair.tryAcquire(at(t), req(1, 300_000));
    for (const n of [2, 3, 4]) await fair.queuedAttempt(at(t), req(n), 5000);
    const before = [await deadline(3), await deadline(4)];
    await fx.raw.del(KEY);
    expect(await fair.queuedAttempt(at(t), req(2), 5000)).toEqual({ acquired: true, count: 1 });
    expect(await queue()).toEqual([owner(3), owner(4)]);
    expect([await deadline(3), await deadline(4)]).toEqual([before[0]! - 5000, before[1]! - 5000]);
  });

  it('a waiter that times out leaves the queue and shifts the ones behind it by its wait (testTryLockWait)', async () => {
    await fair.tryAcquire(fx.env, req(1, 10_000));
    await fair.queuedAttempt(fx.env, req(2), 5000);
    const slow = fair.acquire(fx.env, req(3), { waitMs: 300 });
    await parked(3);
    await fair.queuedAttempt(fx.env, req(4), 5000);
    const before = await deadline(4);
    const started = Date.now();
    const attempt = await slow;
    expect(attempt.acquired).toBe(false);
    // Its own 300 ms wait, not the holder's 10 s lease (the slack is for a loaded machine).
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await queue()).toEqual([owner(2), owner(4)]);
    expect(await deadline(4)).toBe(before - 300);
    const [, subscribers] = (await fx.raw.pubsub('NUMSUB', channelOf(3))) as [string, number];
    expect(subscribers).toBe(0);
  });

  it('waiters whose holders just expire (nobody releases) still acquire in queue order (testLeaseTimeout)', async () => {
    const started = Date.now();
    await fair.tryAcquire(fx.env, req(1, 200));
    const acquiredAt: [number, number][] = [];
    const waiters = [2, 3].map((n) =>
      fair.acquire(fx.env, req(n, 200), { waitMs: 10_000 }).then((a) => {
        if (a.acquired) acquiredAt.push([n, Date.now() - started]);
        // Hold until the lease runs out: the next one must get it from its TTL timer, not a message.
      }),
    );
    await Promise.all(waiters);
    expect(acquiredAt.map(([n]) => n)).toEqual([2, 3]);
    const [[, first], [, second]] = acquiredAt as [[number, number], [number, number]];
    // Each waits out the 200 ms lease before it (50 ms allowed for this process's clock against the
    // server's), and gets the lock from its TTL timer well before its 10 s wait ends.
    expect(first).toBeGreaterThanOrEqual(150);
    expect(second - first).toBeGreaterThanOrEqual(150);
    expect(second).toBeLessThan(5000);
  });

  it('purges only expired waiters at the head, exactly at their deadline', async () => {
    const t = Date.now();
    await fair.tryAcquire(at(t), req(1, 10_000));
    for (const n of [2, 3]) await fair.queuedAttempt(at(t), req(n), 1000);
    const [d2, d3] = [await deadline(2), await deadline(3)];
    await fx.raw.zadd(TIMEOUTS, t, owner(3)); // expired, but not at the head: must stay
    await fair.tryAcquire(at(d2 - 1), req(9));
    expect(await queue()).toEqual([owner(2), owner(3)]);
    await fair.tryAcquire(at(d2), req(9));
    // 2 expired at the head; then 3 became the (expired) head and went too.
    expect(await queue()).toEqual([]);
    expect(await fx.raw.exists(TIMEOUTS)).toBe(0);
    expect(d3).toBeGreaterThan(d2);
  });

  it('drops abandoned waiters after their allowance and lets the next acquire (testAbandonedTimeoutDrift_Descrete)', async () => {
    const short = fairLock({ threadWaitMs: 100 });
    const t = Date.now();
    await short.tryAcquire(at(t), req(1, 500));
    const ttls: number[] = [];
    // Waiters 2 and 3 queue once and die; 4 queues and comes back later. One client clock for the
    // three: each is 100 ms (the allowance) behind the one before, exactly.
    for (const n of [2, 3, 4]) ttls.push(ttlOf(await short.queuedAttempt(at(t), req(n, 500), 0)));
    expect(ttls[2]! - ttls[0]!).toBe(200);
    const deadline3 = await deadline(3);
    expect((await short.queuedAttempt(fx.env, req(4, 500), 0)).acquired).toBe(false);
    await sleep(Math.max(0, deadline3 - Date.now()) + 5);
    // One attempt purges both dead heads and takes the lock.
    expect(await short.queuedAttempt(fx.env, req(4, 500), 0)).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.exists(QUEUE, TIMEOUTS)).toBe(0);
  });

  it('a waiter queued behind a dead head acquires by polling soon after the dead head expires', async () => {
    const short = fairLock({ threadWaitMs: 200 });
    await short.queuedAttempt(fx.env, req(2), 0); // free lock: 2 takes it...
    await fx.raw.del(KEY);
    await fx.raw.rpush(QUEUE, owner(1)); // ...and a dead waiter 1 sits at the head until its deadline
    const dead = Date.now() + 300;
    await fx.raw.zadd(TIMEOUTS, dead, owner(1));
    const attempt = await short.acquire(fx.env, req(3), { waitMs: 10_000 });
    expect(attempt.acquired).toBe(true);
    const late = Date.now() - dead;
    expect(late).toBeGreaterThanOrEqual(0);
    // By polling, not by waiting out its 10 s (the slack is for a loaded machine).
    expect(late).toBeLessThan(5000);
  });

  it('the boolean variant (tryAcquire) never queues and respects the queue (testLockAcquiredBooleanTimeoutDrift_Descrete)', async () => {
    await fair.tryAcquire(fx.env, req(1, 1000));
    const before = await fx.raw.pttl(KEY);
    const refused = await fair.tryAcquire(fx.env, req(2));
    expect(refused).toMatchObject({ acquired: false, holders: [{ owner: owner(1), count: 1 }] });
    expect(ttlOf(refused)).toBeLessThanOrEqual(before);
    expect(ttlOf(refused)).toBeGreaterThan(0);
    expect(await fx.raw.exists(QUEUE, TIMEOUTS)).toBe(0);
    await waitUntil('the lease expires', async () => (await fx.raw.exists(KEY)) === 0);
    expect(await fair.tryAcquire(fx.env, req(3))).toEqual({ acquired: true, count: 1 });
    await fair.release(fx.env, req(3));
    // A live waiter at the head goes first: barging is refused (ttl 0: free, others first), the head may.
    await fx.raw.rpush(QUEUE, owner(4));
    await fx.raw.zadd(TIMEOUTS, Date.now() + 60_000, owner(4));
    expect(await fair.tryAcquire(fx.env, req(5))).toEqual({ acquired: false, ttlMs: 0, holders: [] });
    expect(await queue()).toEqual([owner(4)]);
    expect(await fair.tryAcquire(fx.env, req(4))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.exists(QUEUE, TIMEOUTS)).toBe(0);
  });

  it('unlocking an expired fair lock returns released and still wakes the head (testExpire)', async () => {
    const rec = await recordChannel(fx.server, 'redisson_lock__channel*');
    await fair.tryAcquire(fx.env, req(1, 100));
    await fair.queuedAttempt(fx.env, req(2), 5000);
    await waitUntil('the lease expires', async () => (await fx.raw.exists(KEY)) === 0);
    expect(await fair.release(fx.env, req(1))).toBe('released');
    await sleep(30);
    rec.close();
    expect(rec.messages.map((m) => [m.channel, m.message])).toEqual([[channelOf(2), '0']]);
    expect(await queue()).toEqual([owner(2)]);
  });

  it('refuses a non-owner unlock and wakes nobody (testUnlockFail)', async () => {
    const rec = await recordChannel(fx.server, 'redisson_lock__channel*');
    await fair.tryAcquire(fx.env, req(1));
    await fair.queuedAttempt(fx.env, req(2), 5000);
    expect(await fair.release(fx.env, req(3))).toBe('not-owner');
    await sleep(30);
    rec.close();
    expect(await fx.raw.hgetall(KEY)).toEqual({ [owner(1)]: '1' });
    expect(rec.messages).toEqual([]);
  });

  it('re-enters ahead of the queue, resets the TTL to the new lease and publishes only on the last release', async () => {
    const rec = await recordChannel(fx.server, 'redisson_lock__channel*');
    await fair.tryAcquire(fx.env, req(1, 30_000));
    await fair.queuedAttempt(fx.env, req(2), 5000);
    expect(await fair.tryAcquire(fx.env, req(1, 10_000))).toEqual({ acquired: true, count: 2 });
    expect(await fair.acquire(fx.env, req(1, 10_000), { waitMs: 1000 })).toEqual({ acquired: true, count: 3 });
    expect(await fx.raw.pttl(KEY)).toBeLessThanOrEqual(10_000);
    await fx.raw.pexpire(KEY, 2000);
    expect(await fair.release(fx.env, req(1, 10_000))).toBe('decremented');
    expect(await fx.raw.pttl(KEY)).toBeGreaterThan(9000);
    expect(await fair.release(fx.env, req(1))).toBe('decremented');
    expect(rec.messages).toEqual([]);
    expect(await fair.release(fx.env, req(1))).toBe('released');
    await sleep(30);
    rec.close();
    expect(rec.messages.map((m) => m.channel)).toEqual([channelOf(2)]);
  });

  it('force unlock deletes the hash, keeps the queue and wakes the head', async () => {
    const rec = await recordChannel(fx.server, 'redisson_lock__channel*');
    await fair.tryAcquire(fx.env, req(1));
    await fair.queuedAttempt(fx.env, req(2), 5000);
    expect(await fair.forceUnlock(fx.env, KEY)).toBe(true);
    expect(await fair.forceUnlock(fx.env, KEY)).toBe(false);
    await sleep(30);
    rec.close();
    expect(await fx.raw.exists(KEY)).toBe(0);
    expect(await queue()).toEqual([owner(2)]);
    expect(rec.messages.map((m) => [m.channel, m.message])).toEqual([[channelOf(2), '0']]);
  });

  it('an aborted wait throws InterruptedError and leaves the queue and the channel', async () => {
    await fair.tryAcquire(fx.env, req(1));
    await fair.queuedAttempt(fx.env, req(2), 5000);
    const controller = new AbortController();
    const waiting = fair.acquire(fx.env, req(3), { waitMs: 5000, signal: controller.signal });
    await parked(3);
    const before = await deadline(2);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ exitCode: 130 });
    expect(await queue()).toEqual([owner(2)]);
    expect(await fx.raw.zrange(TIMEOUTS, 0, -1)).toEqual([owner(2)]);
    expect(await deadline(2)).toBe(before); // ahead of the leaver: unchanged
    const [, subscribers] = (await fx.raw.pubsub('NUMSUB', channelOf(3))) as [string, number];
    expect(subscribers).toBe(0);
  });

  it('publishes with SPUBLISH in sharded mode (Redisson >= 3.22 on a Redis 7 Cluster)', async () => {
    const sharded = await testEnv(fx.server, 'sharded');
    const sub = rawClient(fx.server);
    try {
      const got: string[] = [];
      sub.on('smessage', (channel: string, message: string) => got.push(`${channel} ${message}`));
      await sub.ssubscribe(channelOf(2), channelOf(3));
      await fair.tryAcquire(sharded, req(1));
      await fair.queuedAttempt(sharded, req(2), 5000);
      await fair.release(sharded, req(1));
      expect(await fair.forceUnlock(sharded, KEY)).toBe(false); // nothing to delete: nobody woken
      expect(await fair.queuedAttempt(sharded, req(2), 5000)).toEqual({ acquired: true, count: 1 });
      await fair.queuedAttempt(sharded, req(3), 5000);
      expect(await fair.forceUnlock(sharded, KEY)).toBe(true);
      await waitUntil('two messages arrived', async () => got.length >= 2);
      expect(got).toEqual([`${channelOf(2)} 0`, `${channelOf(3)} 0`]);
    } finally {
      sub.disconnect();
      await sharded.close();
    }
  });

  it('refuses keys of another type without writing anything', async () => {
    await fx.raw.rpush('list', 'a');
    await expect(fair.tryAcquire(fx.env, req(1, 1000, 'list'))).rejects.toMatchObject({ exitCode: 2 });
    await fx.raw.hset('rw', 'mode', 'read', owner(3), '1');
    await expect(fair.acquire(fx.env, req(1, 1000, 'rw'), { waitMs: 100 })).rejects.toThrow(/read-write lock/);
    await fx.raw.set(QUEUE, 'not a queue');
    await expect(fair.queuedAttempt(fx.env, req(1), 5000)).rejects.toMatchObject({ exitCode: 2 });
    await expect(fair.release(fx.env, req(1))).rejects.toMatchObject({ exitCode: 2 });
    await expect(fair.acquireFailed(fx.env, req(1), 5000)).rejects.toThrow(/redisson_lock_queue/);
    expect(await fx.raw.lrange('list', 0, -1)).toEqual(['a']);
    expect(await fx.raw.hgetall('rw')).toEqual({ mode: 'read', [owner(3)]: '1' });
    expect(await fx.raw.get(QUEUE)).toBe('not a queue');
    expect(await fx.raw.exists(KEY, TIMEOUTS)).toBe(0);
  });
});
