import { MASTER_NAME } from './config.js';
import { roleOf } from './form-replication.js';
import { failoverInProgress, faultsInForce, type FailoverInProgress, type Fault } from './in-force.js';
import { isStopped, rssKb } from './procfs.js';
import { call, parseInfo } from './resp.js';
import type { Supervisor } from './supervisor.js';
import type { NodeRecord, TopologyName } from './types.js';

/** What a node is doing now: `exited` means it died without the tool killing it. */
export type LiveState = 'running' | 'paused' | 'killed' | 'exited' | 'unresponsive';
export type LiveRole = 'primary' | 'replica' | 'sentinel' | 'unknown';

export interface NodeStatus {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  readonly state: LiveState;
  readonly role: LiveRole;
  readonly startedAt: string;
  /** Replicas: the node they replicate now, their link state and offset, and how far behind they are. */
  readonly replicaOf?: string;
  readonly link?: string;
  readonly offset?: number;
  readonly lagBytes?: number;
  readonly keys?: number;
  /** Cluster nodes: cluster_state as this node sees it. */
  readonly clusterState?: string;
  /** Sentinels: the node they report as master. */
  readonly masterSeen?: string;
  readonly rssKb?: number;
  readonly proxyPort?: number;
  readonly env?: Readonly<Record<string, string>>;
}

export interface SandboxStatus {
  readonly name: string;
  readonly topology: TopologyName;
  readonly dir: string;
  readonly createdAt: string;
  readonly nodes: readonly NodeStatus[];
  /** What is broken on purpose now: paused or killed nodes, proxy latency / partitions, moved clocks, stalls. */
  readonly faults: readonly Fault[];
  /** A primary the topology sees down and has not replaced yet (Sentinel and Cluster only). */
  readonly failover?: FailoverInProgress;
  /** Sentinel topology: the master the sentinels report, and how many of them agree. */
  readonly master?: { readonly name: typeof MASTER_NAME; readonly node: string | undefined; readonly agreeing: number; readonly sentinels: number };
}

const QUERY_MS = 300;

function liveState(sup: Supervisor, node: NodeRecord): LiveState {
  if (node.state === 'killed') return 'killed';
  if (!sup.owns(node)) return 'exited';
  return isStopped(node.pid) ? 'paused' : 'running';
}

type Probe = Omit<NodeStatus, 'name' | 'port' | 'pid' | 'state' | 'startedAt'> & { state?: LiveState; masterPort?: number };

async function probe(node: NodeRecord, topology: TopologyName): Promise<Probe> {
  if (node.role === 'sentinel') {
    const addr = await call(node.port, ['SENTINEL', 'get-master-addr-by-name', MASTER_NAME], QUERY_MS);
    return { role: 'sentinel', ...(Array.isArray(addr) ? { masterPort: Number(addr[1]) } : {}) };
  }
  const [role, keys, cluster] = await Promise.all([
    roleOf(node.port, QUERY_MS),
    call(node.port, ['DBSIZE'], QUERY_MS),
    topology === 'cluster' ? call(node.port, ['CLUSTER', 'INFO'], QUERY_MS) : Promise.resolve(null),
  ]);
  return {
    role: role.role === 'master' ? 'primary' : role.role === 'slave' ? 'replica' : 'unknown',
    ...(role.offset !== undefined ? { offset: role.offset } : {}),
    ...(role.link !== undefined ? { link: role.link } : {}),
    ...(role.masterPort !== undefined ? { masterPort: role.masterPort } : {}),
    ...(typeof keys === 'number' ? { keys } : {}),
    ...(cluster !== null ? { clusterState: parseInfo(cluster).cluster_state ?? 'unknown' } : {}),
  };
}

/** Roles, replication offsets and lag, paused / killed nodes, and what the sentinels report. */
export async function sandboxStatus(sup: Supervisor): Promise<SandboxStatus> {
  const { state } = sup;
  const byPort = new Map(state.nodes.map((n) => [n.port, n.name]));
  const probes = await Promise.all(
    state.nodes.map(async (node): Promise<Probe & { state: LiveState }> => {
      const live = liveState(sup, node);
      if (live !== 'running') return { role: node.role === 'sentinel' ? 'sentinel' : 'unknown', state: live };
      return probe(node, state.topology).then(
        (p) => ({ ...p, state: 'running' as const }),
        () => ({ role: node.role === 'sentinel' ? ('sentinel' as const) : ('unknown' as const), state: 'unresponsive' as const }),
      );
    }),
  );
  const primaryOffset = new Map<number, number>();
  state.nodes.forEach((n, i) => {
    const p = probes[i]!;
    if (p.role === 'primary' && p.offset !== undefined) primaryOffset.set(n.port, p.offset);
  });
  const nodes = state.nodes.map((n, i): NodeStatus => {
    const { masterPort, ...p } = probes[i]!;
    const upstream = masterPort !== undefined ? primaryOffset.get(masterPort) : undefined;
    const rss = p.state === 'running' || p.state === 'paused' ? rssKb(n.pid) : undefined;
    return {
      name: n.name,
      port: n.port,
      pid: n.pid,
      startedAt: n.startedAt,
      ...p,
      ...(masterPort !== undefined && p.role === 'replica' ? { replicaOf: byPort.get(masterPort) ?? `127.0.0.1:${masterPort}` } : {}),
      ...(masterPort !== undefined && p.role === 'sentinel' ? { masterSeen: byPort.get(masterPort) ?? `127.0.0.1:${masterPort}` } : {}),
      ...(upstream !== undefined && p.offset !== undefined && p.role === 'replica' ? { lagBytes: Math.max(0, upstream - p.offset) } : {}),
      ...(rss !== undefined ? { rssKb: rss } : {}),
      ...(n.proxy ? { proxyPort: n.proxy.port } : {}),
      ...(n.env ? { env: n.env } : {}),
    };
  });
  const live = new Map(nodes.map((n) => [n.name, n.state]));
  const [faults, failover] = await Promise.all([faultsInForce(sup, live), failoverInProgress(sup)]);
  const base = { name: state.name, topology: state.topology, dir: state.dir, createdAt: state.createdAt, nodes, faults, ...(failover ? { failover } : {}) };
  if (state.topology !== 'sentinel') return base;
  const answers = nodes.filter((n) => n.role === 'sentinel' && n.masterSeen !== undefined).map((n) => n.masterSeen!);
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
  const [top] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return {
    ...base,
    master: { name: MASTER_NAME, node: top?.[0], agreeing: top?.[1] ?? 0, sentinels: nodes.filter((n) => n.role === 'sentinel').length },
  };
}
