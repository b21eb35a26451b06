import { REPLICA_LINK_TIMEOUT_MS } from './form-replication.js';
import { call, parseInfo } from './resp.js';
import type { NodeRecord } from './types.js';
import { until } from './wait.js';

const SLOTS = 16384;

/** Slot ranges split evenly between `n` primaries. */
export function slotRanges(n: number): [number, number][] {
  return Array.from({ length: n }, (_, i) => [Math.floor((i * SLOTS) / n), Math.floor(((i + 1) * SLOTS) / n) - 1]);
}

/**
 * Forms a cluster from running cluster-enabled nodes: slots to the primaries (ADDSLOTSRANGE), every
 * pair introduced with MEET, replicas attached with CLUSTER REPLICATE; then waits until every node
 * reports cluster_state:ok and knows all the others.
 */
export async function formCluster(
  primaries: readonly NodeRecord[],
  replicas: readonly { node: NodeRecord; of: NodeRecord }[],
  signal?: AbortSignal,
): Promise<void> {
  const all = [...primaries, ...replicas.map((r) => r.node)];
  await Promise.all(primaries.map((p, i) => call(p.port, ['CLUSTER', 'ADDSLOTSRANGE', ...slotRanges(primaries.length)[i]!])));
  // Every pair meets directly: learning a third node through gossip can take seconds.
  for (const [i, a] of all.entries()) for (const b of all.slice(i + 1)) await call(a.port, ['CLUSTER', 'MEET', '127.0.0.1', b.port]);
  const known = `cluster_known_nodes:${all.length}`;
  await until('every cluster node to know the others', async () => {
    const infos = await Promise.all(all.map((n) => call(n.port, ['CLUSTER', 'INFO'], 500)));
    return infos.every((info) => String(info).includes(known));
  }, { signal });
  for (const { node, of } of replicas) {
    const id = String(await call(of.port, ['CLUSTER', 'MYID']));
    await until(`${node.name} to replicate ${of.name}`, async () => (await call(node.port, ['CLUSTER', 'REPLICATE', id])) === 'OK', { signal });
  }
  await until('cluster_state:ok on every node', async () => {
    const infos = await Promise.all(all.map((n) => call(n.port, ['CLUSTER', 'INFO'], 500)));
    return infos.every((info) => parseInfo(info).cluster_state === 'ok');
  }, { signal, timeoutMs: 15_000 });
  if (replicas.length > 0) {
    await until('cluster replicas to finish their first sync', async () => {
      const infos = await Promise.all(replicas.map((r) => call(r.node.port, ['INFO', 'replication'], 500)));
      return infos.every((info) => parseInfo(info).master_link_status === 'up');
    }, { signal, timeoutMs: REPLICA_LINK_TIMEOUT_MS });
  }
}
