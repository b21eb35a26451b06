import { describe, expect, it } from 'vitest';
import { readLock, writeLock } from '../../src/locks/rw.js';
import { owner, rawClient, recordChannel, testEnv } from '../helpers/lock-env.js';
import { useLockServer } from '../helpers/fixture.js';
import { expectLeaseSince, expectTtlReported, serverNow } from '../helpers/server-clock.js';

// Redisson RReadWriteLock (docs/redisson-protocol.md §2.3) against a real redis-server; test names in
// parentheses are the RedissonReadWriteLockTest cases they mirror (§7).

const fx = useLockServer();

const read = readLock();
const write = writeLock();
const req = (n: number, leaseMs = 10_000, key = 'orders') => ({ key, owner: owner(n), leaseMs });
const W = (n: number): string => `${owner(n)}:write`;
/** One read hold's timeout key, spelled out rather than built with names.ts so a naming bug shows. */
const timeoutKey = (n: number, hold: number, key = 'orders'): string =>
  `${key.includes('{') ? key : `{${key}}`}:${owner(n)}:rwlock_timeout:${hold}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CHANNEL = 'redisson_rwlock:{orders}';

async function recorded(action: () => Promise<unknown>): Promise<string[][]> {
  const rec = await recordChannel(fx.server, 'redisson_rwlock*');
  await action();
  await sleep(50);
  rec.close();
  return rec.messages.map((m) => [m.channel, m.message]);
}

describe('layout', () => {
  it('read: mode=read, holder -> count, one PX timeout key per hold; hash TTL never shrinks on acquire', async () => {
    const since = await serverNow(fx.raw);
    expect(await read.tryAcquire(fx.env, req(1, 5000))).toEqual({ acquired: true, count: 1 });
    const hashExpiry = await fx.raw.pexpiretime('orders');
    const sinceSecond = await serverNow(fx.raw);
    expect(await read.tryAcquire(fx.env, req(1, 2000))).toEqual({ acquired: true, count: 2 });
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'read', [owner(1)]: '2' });
    expect(await fx.raw.get(timeoutKey(1, 1))).toBe('1');
    await expectLeaseSince(fx.raw, timeoutKey(1, 1), 5000, since);
    await expectLeaseSince(fx.raw, timeoutKey(1, 2), 2000, sinceSecond);
    // max(PTTL, lease): the shorter second lease did not cut the hash TTL (same absolute expiry).
    await expectLeaseSince(fx.raw, 'orders', 5000, since);
    expect(await fx.raw.pexpiretime('orders')).toBe(hashExpiry);
  });

  it('write: mode=write and a `<uuid>:<thread>:write` field, no timeout keys', async () => {
    const since = await serverNow(fx.raw);
    expect(await write.tryAcquire(fx.env, req(1, 5000))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'write', [W(1)]: '1' });
    expect(await fx.raw.keys('*')).toEqual(['orders']);
    await expectLeaseSince(fx.raw, 'orders', 5000, since);
  });

  it('a hash-tagged name keeps its tag for timeout keys and the channel (testName)', async () => {
    const key = '{test}:abc:key';
    await read.tryAcquire(fx.env, req(1, 400, key));
    await read.tryAcquire(fx.env, req(2, 3000, key));
    expect(await fx.raw.exists(`{test}:abc:key:${owner(1)}:rwlock_timeout:1`)).toBe(1);
    expect(await fx.raw.exists(`{test}:abc:key:${owner(2)}:rwlock_timeout:1`)).toBe(1);
    // The release rebuilds reader 1's key inside Lua: a wrong prefix would find nothing and delete.
    expect(await read.release(fx.env, req(2, 0, key))).toBe('decremented');
    expect(await fx.raw.pttl(key)).toBeLessThanOrEqual(400);
    const messages = await recorded(() => write.forceUnlock(fx.env, key).then(() => read.forceUnlock(fx.env, key)));
    expect(messages).toEqual([['redisson_rwlock:{test}:abc:key', '0']]);
  });
});

describe('sharing and exclusion', () => {
  it('many readers share; the hash TTL is the longest lease (testMultiRead)', async () => {
    expect(await read.forceUnlock(fx.env, 'orders')).toBe(false);
    await read.tryAcquire(fx.env, req(1, 2000));
    const since = await serverNow(fx.raw);
    expect(await read.tryAcquire(fx.env, req(2, 6000))).toEqual({ acquired: true, count: 1 });
    expect(await read.tryAcquire(fx.env, req(3, 1000))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'read', [owner(1)]: '1', [owner(2)]: '1', [owner(3)]: '1' });
    await expectLeaseSince(fx.raw, 'orders', 6000, since);
  });

  it('readers block a writer; the refusal lists readers, not `mode`', async () => {
    await read.tryAcquire(fx.env, req(1, 5000));
    await read.tryAcquire(fx.env, req(1, 5000));
    const before = await fx.raw.pttl('orders');
    const attempt = await write.tryAcquire(fx.env, req(2));
    expect(attempt.acquired).toBe(false);
    if (attempt.acquired) return;
    expect(attempt.holders).toEqual([{ owner: owner(1), count: 2 }]);
    await expectTtlReported(fx.raw, 'orders', attempt.ttlMs, before);
  });

  it('a writer blocks readers and other writers (testWR, testWriteLock)', async () => {
    await write.tryAcquire(fx.env, req(1, 5000));
    for (const attempt of [await read.tryAcquire(fx.env, req(2)), await write.tryAcquire(fx.env, req(2))]) {
      expect(attempt).toMatchObject({ acquired: false, holders: [{ owner: W(1), count: 1 }] });
    }
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'write', [W(1)]: '1' });
  });

  it('write re-entry ADDS the lease; a re-entrant release re-applies the lease', async () => {
    // Leases long enough that the lock outlives a loaded machine's round trips; measured on the server's clock.
    await write.tryAcquire(fx.env, req(1, 10_000));
    const firstExpiry = await fx.raw.pexpiretime('orders');
    expect(await write.tryAcquire(fx.env, req(1, 5000))).toEqual({ acquired: true, count: 2 });
    expect(await fx.raw.pexpiretime('orders')).toBe(firstExpiry + 5000);
    const since = await serverNow(fx.raw);
    expect(await write.release(fx.env, req(1, 8000))).toBe('decremented');
    await expectLeaseSince(fx.raw, 'orders', 8000, since);
  });

  it('a writer may take read, another owner may not; a reader cannot upgrade', async () => {
    await write.tryAcquire(fx.env, req(1));
    expect(await read.tryAcquire(fx.env, req(1, 3000))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'write', [W(1)]: '1', [owner(1)]: '1' });
    expect(await fx.raw.exists(timeoutKey(1, 1))).toBe(1);
    expect((await read.tryAcquire(fx.env, req(2))).acquired).toBe(false);

    await fx.raw.flushall();
    await read.tryAcquire(fx.env, req(3));
    expect((await write.tryAcquire(fx.env, req(3))).acquired).toBe(false);
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'read', [owner(3)]: '1' });
  });
});

describe('release', () => {
  it('write release downgrades to read without publishing and keeps the read holds (testWriteReadReentrancy)', async () => {
    await write.tryAcquire(fx.env, req(1));
    await read.tryAcquire(fx.env, req(1));
    const messages = await recorded(async () => expect(await write.release(fx.env, req(1))).toBe('released'));
    expect(messages).toEqual([]);
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'read', [owner(1)]: '1' });
    expect(await fx.raw.exists(timeoutKey(1, 1))).toBe(1);
    // Still only a reader: no write, not even for the same owner, but other readers may join.
    expect((await write.tryAcquire(fx.env, req(1))).acquired).toBe(false);
    expect((await read.tryAcquire(fx.env, req(2))).acquired).toBe(true);
    await read.release(fx.env, req(2));
    expect(await read.release(fx.env, req(1))).toBe('released');
    expect((await write.tryAcquire(fx.env, req(1))).acquired).toBe(true);
  });

  it('a writer releasing its read keeps the lock in write mode without publishing', async () => {
    const since = await serverNow(fx.raw);
    await write.tryAcquire(fx.env, req(1, 5000));
    await read.tryAcquire(fx.env, req(1, 200));
    const messages = await recorded(async () => expect(await read.release(fx.env, req(1))).toBe('decremented'));
    expect(messages).toEqual([]);
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'write', [W(1)]: '1' });
    // Still the write hold's lease, not cut to the 200 ms read hold.
    await expectLeaseSince(fx.raw, 'orders', 5000, since);
  });

  it('publishes 0 on the last read release, 1 on the write release, nothing on a partial release', async () => {
    const messages = await recorded(async () => {
      await read.tryAcquire(fx.env, req(1));
      await read.tryAcquire(fx.env, req(2));
      expect(await read.release(fx.env, req(1))).toBe('decremented');
      expect(await read.release(fx.env, req(2))).toBe('released');
      await write.tryAcquire(fx.env, req(3));
      await write.tryAcquire(fx.env, req(3));
      expect(await write.release(fx.env, req(3))).toBe('decremented');
      expect(await write.release(fx.env, req(3))).toBe('released');
    });
    expect(messages).toEqual([[CHANNEL, '0'], [CHANNEL, '1']]);
    expect(await fx.raw.keys('*')).toEqual([]);
  });

  it('the hash TTL shrinks to the remaining reader when a reader leaves (testReadLockLeaseTimeout)', async () => {
    // Leases long enough that a busy machine's round trips cannot blur which reader's TTL is which.
    await read.tryAcquire(fx.env, req(1, 2000));
    const reader1Expiry = await fx.raw.pexpiretime(timeoutKey(1, 1));
    const since = await serverNow(fx.raw);
    await read.tryAcquire(fx.env, req(2, 10_000));
    await expectLeaseSince(fx.raw, 'orders', 10_000, since);
    expect(await read.release(fx.env, req(2))).toBe('decremented');
    // The hash now ends exactly when reader 1's hold does (its remaining TTL re-applied in Lua).
    expect(await fx.raw.pexpiretime('orders')).toBe(reader1Expiry);
    // Reader 1 just expires (no publish): the writer gets in on its TTL timer, before the moment
    // reader 2's 10 s lease would have freed the lock (read on the server's clock).
    const attempt = await write.acquire(fx.env, req(3), { waitMs: 8000 });
    expect(attempt.acquired).toBe(true);
    expect(await serverNow(fx.raw)).toBeLessThan(since + 10_000);
  });

  it('refuses a non-owner unlock and leaves the lock untouched (testUnlockFail)', async () => {
    await read.tryAcquire(fx.env, req(1));
    expect(await read.release(fx.env, req(2))).toBe('not-owner');
    expect(await write.release(fx.env, req(1))).toBe('not-owner'); // a reader is not the writer
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'read', [owner(1)]: '1' });
    await fx.raw.flushall();
    await write.tryAcquire(fx.env, req(1));
    expect(await write.release(fx.env, req(2))).toBe('not-owner');
    expect(await read.release(fx.env, req(1))).toBe('not-owner'); // the writer holds no read
    expect(await fx.raw.hgetall('orders')).toEqual({ mode: 'write', [W(1)]: '1' });
  });

  it('unlocking a missing (expired) lock is refused but still publishes (testExpireWrite, >= 3.44)', async () => {
    await write.tryAcquire(fx.env, req(1, 100));
    await sleep(150);
    const messages = await recorded(async () => {
      expect(await write.release(fx.env, req(1))).toBe('not-owner');
      expect(await read.release(fx.env, req(1))).toBe('not-owner');
    });
    expect(messages).toEqual([[CHANNEL, '1'], [CHANNEL, '0']]);
    expect(await fx.raw.exists('orders')).toBe(0);
  });
});

describe('waiting', () => {
  it('read waiters behind a writer are all woken by the single `1` message (testWriteRead)', async () => {
    await write.tryAcquire(fx.env, req(1, 10_000));
    const rec = await recordChannel(fx.server, 'redisson_rwlock*');
    const waiters = [2, 3, 4, 5, 6].map((n) => read.acquire(fx.env, req(n), { waitMs: 5000 }));
    await sleep(250);
    const releasedAt = Date.now();
    expect(await write.release(fx.env, req(1))).toBe('released');
    const attempts = await Promise.all(waiters);
    const took = Date.now() - releasedAt;
    rec.close();
    expect(attempts.every((a) => a.acquired)).toBe(true);
    expect(took).toBeLessThan(3000); // their TTL timers were ~10 s: only the message can explain this
    expect(rec.messages.map((m) => m.message)).toEqual(['1']);
    expect(await fx.raw.hlen('orders')).toBe(6);
  });

  it('a write waiter behind a reader is woken by the read release `0`', async () => {
    await read.tryAcquire(fx.env, req(1, 10_000));
    const waiting = write.acquire(fx.env, req(2), { waitMs: 5000 });
    await sleep(150);
    const releasedAt = Date.now();
    await read.release(fx.env, req(1));
    expect((await waiting).acquired).toBe(true);
    // Well under the fallback (the lock's TTL, seconds): only the unlock message wakes it this soon, also on a busy machine.
    expect(Date.now() - releasedAt).toBeLessThan(1000);
  });

  it('sharded mode publishes every message with SPUBLISH, as Redisson does on a Redis 7 Cluster', async () => {
    const sharded = await testEnv(fx.server, 'sharded');
    const sub = rawClient(fx.server);
    const heard: string[][] = [];
    sub.on('smessage', (channel: string, message: string) => heard.push([channel, message]));
    try {
      await sub.ssubscribe(CHANNEL);
      const plain = await recorded(async () => {
        await write.tryAcquire(sharded, req(1));
        await write.release(sharded, req(1));
        await read.tryAcquire(sharded, req(2));
        await read.release(sharded, req(2));
        await write.release(sharded, req(1)); // missing lock: still publishes
        await write.tryAcquire(sharded, req(1));
        await write.forceUnlock(sharded, 'orders');
      });
      expect(plain).toEqual([]); // PSUBSCRIBE never sees SPUBLISH
      expect(heard).toEqual([[CHANNEL, '1'], [CHANNEL, '0'], [CHANNEL, '1'], [CHANNEL, '1']]);
    } finally {
      sub.disconnect();
      await sharded.close();
    }
  });
});

describe('renew', () => {
  it('read renew extends only this owner’s timeout keys: another reader becomes a zombie and is dropped', async () => {
    await read.tryAcquire(fx.env, req(1, 300));
    await read.tryAcquire(fx.env, req(1, 300));
    await read.tryAcquire(fx.env, req(2, 300));
    const since = await serverNow(fx.raw);
    // Renewed far past reader 2's 300 ms, so no amount of lateness here lets reader 1's holds lapse.
    expect(await read.renew(fx.env, req(1, 30_000))).toBe(true);
    await expectLeaseSince(fx.raw, timeoutKey(1, 1), 30_000, since);
    await expectLeaseSince(fx.raw, timeoutKey(1, 2), 30_000, since);
    await expectLeaseSince(fx.raw, 'orders', 30_000, since);
    expect(await fx.raw.pttl(timeoutKey(2, 1))).toBeLessThanOrEqual(300);
    // Wait for the server to expire reader 2's hold (a server fact, not a sleep that may run short of it).
    for (let i = 0; i < 100 && (await fx.raw.exists(timeoutKey(2, 1))) === 1; i++) await sleep(50);
    // Reader 2's hold expired but its field stays: a zombie that no longer counts for the TTL.
    expect(await fx.raw.exists(timeoutKey(2, 1))).toBe(0);
    expect(await fx.raw.hget('orders', owner(2))).toBe('1');
    expect(await read.release(fx.env, req(1))).toBe('decremented');
    // The hash follows reader 1's remaining hold, not the zombie's lapsed one.
    expect(await fx.raw.pexpiretime('orders')).toBe(await fx.raw.pexpiretime(timeoutKey(1, 1)));
    const messages = await recorded(async () => expect(await read.release(fx.env, req(1))).toBe('released'));
    expect(messages).toEqual([[CHANNEL, '0']]);
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('renew answers false for a non-holder, and write renew needs the write hold', async () => {
    await read.tryAcquire(fx.env, req(1, 1000));
    expect(await read.renew(fx.env, req(2, 5000))).toBe(false);
    expect(await write.renew(fx.env, req(1, 5000))).toBe(false);
    expect(await fx.raw.pttl('orders')).toBeLessThanOrEqual(1000);
    await fx.raw.flushall();
    await write.tryAcquire(fx.env, req(1, 1000));
    const since = await serverNow(fx.raw);
    expect(await write.renew(fx.env, req(1, 5000))).toBe(true);
    await expectLeaseSince(fx.raw, 'orders', 5000, since);
    expect(await write.renew(fx.env, req(2, 5000))).toBe(false);
    expect(await read.renew(fx.env, req(1, 5000))).toBe(false);
  });
});

describe('force unlock and foreign keys', () => {
  it('force unlock only frees its own mode and publishes 0 (read) / 1 (write) (testForceUnlock)', async () => {
    await write.tryAcquire(fx.env, req(1));
    expect(await read.forceUnlock(fx.env, 'orders')).toBe(false);
    expect(await fx.raw.hget('orders', 'mode')).toBe('write');
    expect(await recorded(async () => expect(await write.forceUnlock(fx.env, 'orders')).toBe(true))).toEqual([[CHANNEL, '1']]);
    expect(await fx.raw.exists('orders')).toBe(0);

    await read.tryAcquire(fx.env, req(2));
    expect(await write.forceUnlock(fx.env, 'orders')).toBe(false);
    expect(await fx.raw.hget('orders', 'mode')).toBe('read');
    expect(await recorded(async () => expect(await read.forceUnlock(fx.env, 'orders')).toBe(true))).toEqual([[CHANNEL, '0']]);
    expect(await fx.raw.exists('orders')).toBe(0);
    // Like Redisson, the timeout keys are left to expire on their own.
    expect(await fx.raw.exists(timeoutKey(2, 1))).toBe(1);
  });

  it('refuses a plain RLock hash or a list without touching it', async () => {
    await fx.raw.hset('plain', owner(9), '1');
    await fx.raw.pexpire('plain', 5000);
    await fx.raw.rpush('list', 'a');
    const ops = (key: string) => [
      read.tryAcquire(fx.env, req(1, 1000, key)),
      write.tryAcquire(fx.env, req(1, 1000, key)),
      read.release(fx.env, req(9, 1000, key)),
      write.release(fx.env, req(9, 1000, key)),
      read.forceUnlock(fx.env, key),
      write.forceUnlock(fx.env, key),
    ];
    for (const op of ops('plain')) await expect(op).rejects.toThrow(/plain Redisson lock/);
    for (const op of ops('list')) await expect(op).rejects.toMatchObject({ exitCode: 2 });
    await expect(read.renew(fx.env, req(9, 60_000, 'plain'))).rejects.toThrow(/plain Redisson lock/);
    expect(await fx.raw.hgetall('plain')).toEqual({ [owner(9)]: '1' });
    expect(await fx.raw.pttl('plain')).toBeLessThanOrEqual(5000);
    expect(await fx.raw.lrange('list', 0, -1)).toEqual(['a']);
    expect((await fx.raw.keys('*')).sort()).toEqual(['list', 'plain']);
  });
});
