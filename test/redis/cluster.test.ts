import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually } from '../helpers/sandbox.js';
import { clusterNodeOf, startCluster, type Topology } from '../helpers/topologies.js';

let cluster: Topology;
let seeds: string;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  cluster = await startCluster();
  seeds = cluster.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  env = tempStateEnv();
}, 30_000);
afterAll(async () => {
  await cluster?.stop();
});

/** The node serving a key's slot (slots were split in thirds by startCluster). */
function ownerPort(key: string): number {
  return cluster.nodes[clusterNodeOf(key)]!.port;
}

describe('Redis Cluster', () => {
  it('acquires and releases locks on keys in every third of the slots', async () => {
    const keys = ['a', 'b', 'c', 'orders', 'user:42'];
    expect(new Set(keys.map(ownerPort)).size).toBe(3);
    for (const key of keys) {
      expect((await runCli(['acquire', key, '--cluster', seeds], env)).code).toBe(0);
      const owner = new Redis({ port: ownerPort(key) });
      expect(Object.keys(await owner.hgetall(key))).toHaveLength(1);
      owner.disconnect();
      expect((await runCli(['release', key, '--cluster', seeds], env)).code).toBe(0);
    }
  });

  it('publishes with SPUBLISH to the slot owner (auto mode on Redis 7), and a waiter wakes on it', async () => {
    const key = 'orders';
    const channel = 'redisson_lock__channel:{orders}';
    const sharded = new Redis({ port: ownerPort(key) });
    const plain = new Redis({ port: ownerPort(key) });
    const shardedMessages: string[] = [];
    const plainMessages: string[] = [];
    sharded.on('smessage', (_c: string, m: string) => shardedMessages.push(m));
    plain.on('message', (_c: string, m: string) => plainMessages.push(m));
    await sharded.ssubscribe(channel);
    await plain.subscribe(channel);

    const holder = '11111111-1111-4111-8111-111111111111:1';
    expect((await runCli(['acquire', key, '--cluster', seeds, '--owner', holder, '--lease', '20s'], env)).code).toBe(0);
    const waiting = runCli(['acquire', key, '--cluster', seeds, '--wait', '5s', '--json'], env);
    // Released once the waiter listens on its shard channel (our own SSUBSCRIBE is the other one).
    const node = new Redis({ port: ownerPort(key) });
    await eventually(async () => ((await node.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number])[1] >= 2, 15_000);
    node.disconnect();
    const releasedAt = Date.now();
    expect((await runCli(['release', key, '--cluster', seeds, '--owner', holder], env)).code).toBe(0);
    const woke = await waiting;
    const wokeAfter = Date.now() - releasedAt;
    expect(woke.code).toBe(0);
    // The waiter's own fallback timer is the 20 s TTL: only the SPUBLISH can have woken it this
    // soon (the bound is loose: it also covers the release command's own run on a busy machine).
    expect(wokeAfter).toBeLessThan(2000);
    await eventually(async () => shardedMessages.length > 0, 5000);
    expect(shardedMessages).toEqual(['0']);
    expect(plainMessages).toEqual([]);
    sharded.disconnect();
    plain.disconnect();
    await runCli(['release', key, '--cluster', seeds, '--owner', JSON.parse(woke.stdout).owner], env);
  });

  it('--pubsub plain uses PUBLISH, for pre-3.22 Redisson clients', async () => {
    const sub = new Redis({ port: cluster.nodes[0]!.port });
    const got: string[] = [];
    sub.on('message', (_c: string, m: string) => got.push(m));
    await sub.subscribe('redisson_lock__channel:{plainmode}');
    await runCli(['acquire', 'plainmode', '--cluster', seeds, '--pubsub', 'plain'], env);
    await runCli(['release', 'plainmode', '--cluster', seeds, '--pubsub', 'plain'], env);
    await new Promise((r) => setTimeout(r, 50));
    sub.disconnect();
    expect(got).toEqual(['0']);
  });

  it('refuses a /db in the URL and an unreachable seed list', async () => {
    const db = await runCli(['acquire', 'k', '--cluster', seeds, '-u', 'redis://127.0.0.1/2'], env);
    expect(db.code).toBe(2);
    const down = await runCli(['acquire', 'k', '--cluster', '127.0.0.1:1'], env);
    expect(down.code).toBe(3);
    expect(down.stderr).toContain('Redis Cluster at 127.0.0.1:1');
  });

  it('read-write and fair locks keep every key (derived inside Lua too) in the lock slot', async () => {
    const a = '11111111-1111-4111-8111-111111111111:1';
    const b = '22222222-2222-4222-8222-222222222222:1';
    // Read release recomputes the TTL over other readers' rwlock_timeout keys built inside Lua:
    // a key outside the declared slot would fail with a cross-slot script error here.
    for (const owner of [a, b]) expect((await runCli(['acquire', 'rw', '--kind', 'read', '--cluster', seeds, '--owner', owner], env)).code).toBe(0);
    expect((await runCli(['release', 'rw', '--kind', 'read', '--cluster', seeds, '--owner', a], env)).code).toBe(0);
    expect((await runCli(['release', 'rw', '--kind', 'read', '--cluster', seeds, '--owner', b], env)).code).toBe(0);

    expect((await runCli(['acquire', 'fq', '--kind', 'fair', '--cluster', seeds, '--owner', a, '--lease', '20s'], env)).code).toBe(0);
    const waiting = runCli(['acquire', 'fq', '--kind', 'fair', '--cluster', seeds, '--owner', b, '--wait', '5s'], env);
    const node = new Redis({ port: ownerPort('fq') });
    await eventually(async () => (await node.lrange('redisson_lock_queue:{fq}', 0, -1)).length > 0, 15_000);
    expect(await node.lrange('redisson_lock_queue:{fq}', 0, -1)).toEqual([b]);
    const releasedAt = Date.now();
    expect((await runCli(['release', 'fq', '--kind', 'fair', '--cluster', seeds, '--owner', a], env)).code).toBe(0);
    expect((await waiting).code).toBe(0);
    // Its timers follow the 20 s lease: only the message to its channel wakes it this soon.
    expect(Date.now() - releasedAt).toBeLessThan(2000);
    expect(await node.hgetall('fq')).toEqual({ [b]: '1' });
    node.disconnect();
  });
});
