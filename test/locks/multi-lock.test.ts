import { afterEach, describe, expect, it } from 'vitest';
import { lockChannel } from '../../src/core/names.js';
import { multiLock } from '../../src/locks/multi-lock.js';
import { useLockServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';

// Our --kind multi-lock against the layout RedissonFasterMultiLock.java writes at redisson-3.52.0
// (docs/lock-formats.md): the group hash, per value `<value>` = owner, `<value>:<owner>:expire_time`
// and `<value>:<owner>:lock_count`; refusal only where another owner's expiry on a value asked for
// is ahead; waiters woken with RLock's unlock message on the group's channel.

const fx = useLockServer();
const GROUP = 'class_100';
const A = '71b96ce8-2746-4c1e-9d3a-2f5b8c7e6a10:1';
const B = '0c2d4e6f-8a1b-4c3d-9e5f-7a8b9c0d1e2f:57';
const [VA, VB, VC, VD] = ['q3Jm0cXkZ9b1T4uV7wYtAg', 'Zx8+P2lKd0aRr/5mNc1e9Q', 'AbCdEfGhIjKlMnOpQrStUv', 'd0d0d0d0d0d0d0d0d0d0dw'];
const req = (owner: string, values?: string[]) => ({ key: GROUP, owner, leaseMs: 30_000, values });
const subscribers: ReturnType<typeof rawClient>[] = [];
afterEach(() => {
  for (const s of subscribers.splice(0)) s.disconnect();
});

describe('--kind multi-lock', () => {
  it("writes Redisson's fields; a second owner is refused on a shared value and granted disjoint ones", async () => {
    expect(await multiLock.tryAcquire(fx.env, req(A, [VA, VB]))).toEqual({ acquired: true, count: 1 });
    const fields = await fx.raw.hgetall(GROUP);
    expect(Object.keys(fields).sort()).toEqual(
      [VA, VB, `${VA}:${A}:expire_time`, `${VA}:${A}:lock_count`, `${VB}:${A}:expire_time`, `${VB}:${A}:lock_count`].sort(),
    );
    expect([fields[VA], fields[VB], fields[`${VA}:${A}:lock_count`]]).toEqual([A, A, '1']);
    expect(Number(fields[`${VA}:${A}:expire_time`]) - Date.now()).toBeGreaterThan(20_000);
    expect(await fx.raw.pttl(GROUP)).toBeGreaterThan(20_000);

    // {b, c}: b is A's, so nothing of B's is written, c included.
    const refused = await multiLock.tryAcquire(fx.env, req(B, [VB, VC]));
    expect(refused).toMatchObject({ acquired: false, holders: [{ owner: A, count: 1 }] });
    expect(!refused.acquired && refused.ttlMs).toBeGreaterThan(20_000);
    expect(await fx.raw.hexists(GROUP, VC)).toBe(0);

    // {c, d}: tryLockInnerAsync checks only the values asked for, so B shares the group with A.
    expect(await multiLock.tryAcquire(fx.env, req(B, [VC, VD]))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.hmget(GROUP, VA, VB, VC, VD)).toEqual([A, A, B, B]);
    // Re-entry counts a hold per value.
    expect(await multiLock.tryAcquire(fx.env, req(A, [VA]))).toEqual({ acquired: true, count: 2 });
  });

  it("takes a value whose other owner's expiry has passed, as Redisson does", async () => {
    const past = String(Date.now() - 5_000);
    await fx.raw.hset(GROUP, VA, B, `${VA}:${B}:expire_time`, past, `${VA}:${B}:lock_count`, '1');
    expect(await multiLock.tryAcquire(fx.env, req(A, [VA]))).toEqual({ acquired: true, count: 1 });
    expect(await fx.raw.hget(GROUP, VA)).toBe(A);
  });

  it('our release counts down our values and wakes a waiter on the group channel; renewals are ours only', async () => {
    await multiLock.tryAcquire(fx.env, req(A, [VA, VB]));
    await multiLock.tryAcquire(fx.env, req(A, [VA]));
    await multiLock.tryAcquire(fx.env, req(B, [VC]));
    expect(await multiLock.renew(fx.env, req(A))).toBe(true);
    expect(await multiLock.renew(fx.env, req(A, [VC]))).toBe(false);

    const waiter = rawClient(fx.server);
    subscribers.push(waiter);
    const heard: string[] = [];
    waiter.on('message', (channel: string, message: string) => heard.push(`${channel} ${message}`));
    await waiter.subscribe(lockChannel(GROUP));

    // With no values named, the values A holds: a keeps one hold, b is freed.
    expect(await multiLock.release(fx.env, req(A))).toBe('decremented');
    expect(await fx.raw.hmget(GROUP, VA, VB, VC)).toEqual([A, null, B]);
    expect(await multiLock.release(fx.env, req(A, [VA]))).toBe('released');
    expect(await fx.raw.hexists(GROUP, `${VA}:${A}:expire_time`)).toBe(0);
    expect(await multiLock.release(fx.env, req(A))).toBe('not-owner');
    // A message is delivered before the reply to a later command on the same connection.
    await waiter.ping();
    expect(heard).toEqual([`${lockChannel(GROUP)} 0`, `${lockChannel(GROUP)} 0`]);
    expect(await fx.raw.hget(GROUP, VC)).toBe(B);
  });
});
