import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { lockChannel, rwTimeoutPrefix } from '../../src/core/names.js';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { fairLock } from '../../src/locks/fair.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { readLock } from '../../src/locks/rw.js';
import { owner } from '../helpers/lock-env.js';
import { useClusterLockEnv } from '../helpers/fixture.js';
import { clusterNodeOf } from '../helpers/topologies.js';

// On a Cluster each snapshot runs on the key's slot owner with its companions (same hash tag),
// and one inspectKeys call fans out one pipeline per primary.

const fx = useClusterLockEnv();

const req = (key: string, n: number) => ({ key, owner: owner(n), leaseMs: 10_000 });

describe('inspect on Redis Cluster', () => {
  it('keys on all three primaries in one call, fair queues and rw timeout keys read on their owner', async () => {
    const keys = ['a', 'b', 'c', '{user1}:lock', 'rw'];
    expect(new Set(keys.map(clusterNodeOf)).size).toBe(3);
    for (const key of ['a', 'b', 'c']) await hashLock('reentrant').tryAcquire(fx.env, req(key, 1));
    await fairLock().tryAcquire(fx.env, req('{user1}:lock', 1));
    await fairLock().queuedAttempt(fx.env, req('{user1}:lock', 2), 5000);
    await readLock().tryAcquire(fx.env, req('rw', 3));
    const views = await inspectKeys(fx.env.conn, keys);
    expect(views.map((v) => [v.key, v.kind])).toEqual([['a', 'reentrant'], ['b', 'reentrant'], ['c', 'reentrant'], ['{user1}:lock', 'fair'], ['rw', 'rw']]);
    expect(views[3]!.queue!.map((q) => q.owner)).toEqual([owner(2)]);
    expect(views[4]!.readers![0]!.timeoutKeys.map((k) => k.key)).toEqual([`${rwTimeoutPrefix('rw', owner(3))}:1`]);
  });

  it('a waiter subscribed with SSUBSCRIBE on the slot owner is counted', async () => {
    await hashLock('reentrant').tryAcquire(fx.env, req('orders', 1));
    const sub = new Redis({ port: fx.cluster.nodes[clusterNodeOf('orders')]!.port });
    await sub.ssubscribe(lockChannel('orders'));
    const [v] = await inspectKeys(fx.env.conn, ['orders']);
    sub.disconnect();
    expect(v!.waiters).toBe(1);
  });

  it('a name whose braces make no hash tag is still read, without its companions', async () => {
    const key = '{}abc';
    expect(clusterNodeOf(key)).not.toBe(clusterNodeOf(`redisson_lock_queue:${key}`));
    const node = new Redis({ port: fx.cluster.nodes[clusterNodeOf(key)]!.port });
    await node.hset(key, owner(1), '1');
    await node.pexpire(key, 10_000);
    node.disconnect();
    const [v] = await inspectKeys(fx.env.conn, [key]);
    expect(v).toMatchObject({ kind: 'reentrant', holders: [{ owner: owner(1) }] });
    expect(v!.warnings.map((w) => w.code)).toEqual(['companions-not-read']);
  });
});
