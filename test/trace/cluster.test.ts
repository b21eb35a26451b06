import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/sandbox.js';
import { startCluster, type Topology } from '../helpers/topologies.js';
import { startTrace } from './trace-fixture.js';

// On a Cluster every primary has its own command stream: the trace follows all of them, and each
// event names the primary it happened on.

let cluster: Topology;
let client: Cluster;
beforeAll(async () => {
  cluster = await startCluster();
  client = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0]!.port }]);
});
afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

describe('trace on a Cluster', () => {
  it('follows every primary, also when given one node\'s URL: locks in every slot range are decoded, each with its node', async () => {
    const trace = await startTrace(parseEndpointUrl(`redis://127.0.0.1:${cluster.nodes[1]!.port}`));
    expect(trace.status).toEqual([]);
    // Keys spread over the three slot ranges (slots of a..z cover all three nodes).
    const keys = 'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => `lock:${c}`);
    for (const key of keys) await client.set(key, `tok-${key}`, 'PX', 5000, 'NX');
    // Each primary's stream arrives on its own connection: wait for all of them, not just the marker's node.
    await eventually(async () => trace.events.filter((e) => e.kind === 'acquired').length >= keys.length, 10_000);
    await trace.stop(client);
    const acquired = trace.events.filter((e) => e.kind === 'acquired');
    expect(acquired.map((e) => e.lock).sort()).toEqual([...keys].sort());
    const nodes = new Set(acquired.map((e) => e.node));
    expect([...nodes].sort()).toEqual(cluster.nodes.map((n) => `127.0.0.1:${n.port}`).sort());
    for (const e of acquired) expect(e.owner).toBe(`tok-${e.lock}`);
  }, 60_000);

  it('--source keyspace follows every primary too; --enable-notifications turns them on per node and puts each back', async () => {
    const nodes = cluster.nodes.map((n) => new Redis({ host: '127.0.0.1', port: n.port }));
    const config = () => Promise.all(nodes.map(async (n) => ((await n.config('GET', 'notify-keyspace-events')) as string[])[1]));
    try {
      const before = await config();
      const trace = await startTrace(parseEndpointUrl(`redis://127.0.0.1:${cluster.nodes[0]!.port}`), { source: 'keyspace', enableNotifications: true });
      const keys = 'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => `ks:${c}`);
      for (const key of keys) await client.set(key, `tok-${key}`, 'PX', 5000, 'NX');
      await eventually(async () => trace.events.filter((e) => e.kind === 'acquired').length >= keys.length, 10_000);
      await trace.stop(client);
      const acquired = trace.events.filter((e) => e.kind === 'acquired');
      expect(acquired.map((e) => e.lock).sort()).toEqual([...keys].sort());
      for (const e of acquired) expect(e.owner).toBe(`tok-${e.lock}`);
      expect([...new Set(acquired.map((e) => e.node))].sort()).toEqual(cluster.nodes.map((n) => `127.0.0.1:${n.port}`).sort());
      expect(await config()).toEqual(before);
      expect(trace.status.filter((s) => s.startsWith('put notify-keyspace-events'))).toHaveLength(cluster.nodes.length);
    } finally {
      for (const n of nodes) n.disconnect();
    }
  }, 60_000);
});
