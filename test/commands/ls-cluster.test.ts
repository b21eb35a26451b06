import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/doctor.js';
import { fairLock } from '../../src/locks/fair.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { readLock } from '../../src/locks/rw.js';
import { owner, rawClient } from '../helpers/lock-env.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { useClusterLockEnv } from '../helpers/fixture.js';
import { clusterNodeOf } from '../helpers/topologies.js';

// SCAN only sees the node it runs on: ls and doctor must walk every primary.

const fx = useClusterLockEnv();
const cliEnv = tempStateEnv();

const req = (key: string, n: number) => ({ key, owner: owner(n), leaseMs: 30_000 });

describe('ls and doctor on Redis Cluster', () => {
  it('ls finds the locks on all three primaries, each once, companions skipped', async () => {
    const keys = ['a', 'b', 'c', '{user1}:lock', 'rw'];
    expect(new Set(keys.map(clusterNodeOf)).size).toBe(3);
    for (const key of ['a', 'b', 'c']) await hashLock('reentrant').tryAcquire(fx.env, req(key, 1));
    await fairLock().tryAcquire(fx.env, req('{user1}:lock', 1));
    await fairLock().queuedAttempt(fx.env, req('{user1}:lock', 2), 60_000);
    await readLock().tryAcquire(fx.env, req('rw', 3));
    const r = await runCli(['ls', '--cluster', fx.seeds, '--json'], cliEnv);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const views = JSON.parse(r.stdout) as { key: string; kind: string }[];
    expect(views.map((v) => `${v.key} ${v.kind}`).sort()).toEqual(['a reentrant', 'b reentrant', 'c reentrant', 'rw rw', '{user1}:lock fair']);
  });

  it('doctor reports a lock without TTL on any primary, with a redis-cli -c fix against its node', async () => {
    const key = ['x', 'y', 'z'].find((k) => clusterNodeOf(k) === 2)!;
    const port = fx.cluster.nodes[2]!.port;
    const raw = rawClient({ port });
    await raw.hset(key, owner(1), '1');
    raw.disconnect();
    const r = await runCli(['doctor', '--cluster', fx.seeds, '--json'], cliEnv);
    expect(r.code).toBe(6);
    const findings = JSON.parse(r.stdout) as Finding[];
    expect(findings.filter((f) => f.code === 'no-ttl').map((f) => [f.key, f.node, f.fix])).toEqual([
      [key, `127.0.0.1:${port}`, `redis-cli -c -h 127.0.0.1 -p ${port} PEXPIRE ${key} 30000`],
    ]);
    // The first test's fair waiter never subscribed: its queue is checked on its own primary too.
    const fairPort = fx.cluster.nodes[clusterNodeOf('{user1}:lock')]!.port;
    expect(findings.filter((f) => f.code !== 'no-ttl').map((f) => [f.code, f.key, f.node])).toEqual([['silent-queue-head', '{user1}:lock', `127.0.0.1:${fairPort}`]]);
  });
});
