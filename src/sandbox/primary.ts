import { MASTER_NAME } from './config.js';
import { roleOf } from './form-replication.js';
import { isStopped } from './procfs.js';
import { call } from './resp.js';
import type { Supervisor } from './supervisor.js';
import type { NodeRecord } from './types.js';

/** Nodes of a kind whose process is ours, running and not SIGSTOPped (so they can answer). */
export function answering(sup: Supervisor, sentinels: boolean): NodeRecord[] {
  return sup.state.nodes.filter(
    (n) => (n.role === 'sentinel') === sentinels && n.state !== 'killed' && sup.owns(n) && !isStopped(n.pid),
  );
}

/** The master port the first answering sentinel reports. */
export async function sentinelMasterPort(sup: Supervisor): Promise<number | undefined> {
  // Asked of every answering sentinel, and the port most of them name wins: right after a
  // failover one sentinel can still name the old master for a moment.
  const replies = await Promise.all(
    answering(sup, true).map((s) => call(s.port, ['SENTINEL', 'get-master-addr-by-name', MASTER_NAME], 500).catch(() => null)),
  );
  const votes = new Map<number, number>();
  for (const addr of replies) if (Array.isArray(addr)) votes.set(Number(addr[1]), (votes.get(Number(addr[1])) ?? 0) + 1);
  let best: number | undefined;
  for (const [port, count] of votes) if (best === undefined || count > votes.get(best)!) best = port;
  return best;
}

/**
 * The node acting as primary now: what Sentinel reports in a sentinel sandbox, otherwise the first
 * answering node whose ROLE says master. Undefined for topologies without replication.
 */
export async function livePrimary(sup: Supervisor, exclude?: string): Promise<NodeRecord | undefined> {
  const { topology } = sup.state;
  if (topology !== 'replicated' && topology !== 'sentinel' && topology !== 'single') return undefined;
  if (topology === 'sentinel') {
    const port = await sentinelMasterPort(sup);
    if (port !== undefined) return sup.state.nodes.find((n) => n.port === port);
  }
  for (const node of answering(sup, false)) {
    if (node.name === exclude) continue;
    if ((await roleOf(node.port).catch(() => undefined))?.role === 'master') return node;
  }
  return undefined;
}

/** Where a restarted redis node should replicate from: the current primary, unless that is itself. */
export async function currentPrimaryPort(sup: Supervisor, node: NodeRecord): Promise<number | undefined> {
  if (sup.state.topology !== 'replicated' && sup.state.topology !== 'sentinel') return undefined;
  const primary = await livePrimary(sup, node.name);
  return primary && primary.name !== node.name ? primary.port : undefined;
}
