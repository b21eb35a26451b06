import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { slotRanges } from '../../src/sandbox/form-cluster.js';
import { useSandbox } from '../helpers/sandbox.js';

const fx = useSandbox({ topology: 'cluster', name: 'cluster', replicas: 1 });

describe('sandbox cluster --replicas 1', () => {
  it('splits the 16384 slots evenly', () => {
    expect(slotRanges(3)).toEqual([[0, 5460], [5461, 10921], [10922, 16383]]);
  });

  it('forms 3 primaries with one replica each, cluster_state:ok on every node', async () => {
    const { sandbox } = fx;
    expect(sandbox.nodes.map((n) => `${n.name}:${n.role}:${n.replicaOf ?? ''}`)).toEqual([
      'n1:primary:', 'n2:primary:', 'n3:primary:', 'n4:replica:n1', 'n5:replica:n2', 'n6:replica:n3',
    ]);
    const status = await sandbox.status();
    expect(status.nodes.every((n) => n.clusterState === 'ok')).toBe(true);
    expect(status.nodes.slice(3).map((n) => [n.role, n.replicaOf])).toEqual([['replica', 'n1'], ['replica', 'n2'], ['replica', 'n3']]);
    expect(sandbox.urls.cluster?.seeds).toEqual(sandbox.nodes.map((n) => `127.0.0.1:${n.port}`));
  });

  it('a cluster client on the seed list writes keys across all slots', async () => {
    const app = new Cluster(fx.sandbox.urls.cluster!.seeds.map((s) => ({ host: '127.0.0.1', port: Number(s.split(':')[1]) })));
    app.on('error', () => undefined);
    try {
      for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) await app.set(key, key);
      const counts = await Promise.all(fx.sandbox.nodes.slice(0, 3).map((n) => fx.client(n.port).dbsize()));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(6);
      expect(counts.filter((c) => c > 0).length).toBeGreaterThan(1);
    } finally {
      app.disconnect();
    }
  });

  it('a restarted primary keeps its cluster identity and slots but comes back empty', async () => {
    const { sandbox } = fx;
    const n1 = sandbox.nodes[0]!;
    const id = await fx.client(n1.port).call('CLUSTER', 'MYID');
    await sandbox.restart('n1', { amnesia: true });
    const c = fx.client(n1.port);
    expect(await c.call('CLUSTER', 'MYID')).toBe(id);
    expect(await c.dbsize()).toBe(0);
  });

  it('failover is refused with a hint', async () => {
    await expect(fx.sandbox.failover()).rejects.toThrow(/kill a cluster primary that has a replica/);
  });
});
