import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockChannel, rwTimeoutPrefix } from '../../src/core/names.js';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { openLockEnv, type OpenLockEnv } from '../../src/locks/env.js';
import { fairLock } from '../../src/locks/fair.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { readLock } from '../../src/locks/rw.js';
import { owner } from '../helpers/lock-env.js';
import { startCluster, type Topology } from '../helpers/topologies.js';

// On a Cluster each snapshot runs on the key's slot owner with its companions (same hash tag),
// and one inspectKeys call fans out one pipeline per primary.

let cluster: Topology;
let env: OpenLockEnv;

beforeAll(async () => {
  cluster = await startCluster();
  const seeds = cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  env = await openLockEnv({ url: `redis://127.0.0.1:${cluster.nodes[0]!.port}`, clusterNodes: seeds }, { mode: 'one-shot', pubsub: 'auto' });
}, 30_000);
afterAll(async () => {
  await env?.close();
  await cluster?.stop();
});

const nodeOf = (key: string): number => {
  const slot = calculateSlot(key);
  return slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2;
};
const req = (key: string, n: number) => ({ key, owner: owner(n), leaseMs: 10_000 });

describe('inspect on Redis Cluster', () => {
  it('keys on all three primaries in one call, fair queues and rw timeout keys read on their owner', async () => {
    const keys = ['a', 'b', 'c', '{user1}:lock', 'rw'];
    expect(new Set(keys.map(nodeOf)).size).toBe(3);
    for (const key of ['a', 'b', 'c']) await hashLock('reentrant').tryAcquire(env, req(key, 1));
    await fairLock().tryAcquire(env, req('{user1}:lock', 1));
    await fairLock().queuedAttempt(env, req('{user1}:lock', 2), 5000);
    await readLock().tryAcquire(env, req('rw', 3));
    const views = await inspectKeys(env.conn, keys);
    expect(views.map((v) => [v.key, v.kind])).toEqual([['a', 'reentrant'], ['b', 'reentrant'], ['c', 'reentrant'], ['{user1}:lock', 'fair'], ['rw', 'rw']]);
    expect(views[3]!.queue!.map((q) => q.owner)).toEqual([owner(2)]);
    expect(views[4]!.readers![0]!.timeoutKeys.map((k) => k.key)).toEqual([`${rwTimeoutPrefix('rw', owner(3))}:1`]);
  });

  it('a waiter subscribed with SSUBSCRIBE on the slot owner is counted', async () => {
    await hashLock('reentrant').tryAcquire(env, req('orders', 1));
    const sub = new Redis({ port: cluster.nodes[nodeOf('orders')]!.port });
    await sub.ssubscribe(lockChannel('orders'));
    const [v] = await inspectKeys(env.conn, ['orders']);
    sub.disconnect();
    expect(v!.waiters).toBe(1);
  });

  it('a name whose braces make no hash tag is still read, without its companions', async () => {
    const key = '{}abc';
    expect(nodeOf(key)).not.toBe(nodeOf(`redisson_lock_queue:${key}`));
    const node = new Redis({ port: cluster.nodes[nodeOf(key)]!.port });
    await node.hset(key, owner(1), '1');
    await node.pexpire(key, 10_000);
    node.disconnect();
    const [v] = await inspectKeys(env.conn, [key]);
    expect(v).toMatchObject({ kind: 'reentrant', holders: [{ owner: owner(1) }] });
    expect(v!.warnings.map((w) => w.code)).toEqual(['companions-not-read']);
  });
});
