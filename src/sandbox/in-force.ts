import { resolve } from 'node:path';
import { fakeClockFile, readClockSpec } from './clock-faketime.js';
import { MASTER_NAME } from './config.js';
import { answering } from './primary.js';
import type { ProxyMode } from './proxy.js';
import { controlSocketPath, proxyRequest } from './proxy-control.js';
import { call, pairs } from './resp.js';
import { nodeDir } from './state.js';
import type { Supervisor } from './supervisor.js';
import type { NodeRecord } from './types.js';

/**
 * What `status` says is broken on purpose right now, each read from where the fault lives: a
 * node's process (paused, killed), its fault proxy (latency, partition), its libfaketime file
 * (clock), the state file (a replication stall: Redis 7.0 does not report a CLIENT PAUSE).
 */
export type Fault =
  | { readonly kind: 'paused'; readonly node: string }
  | { readonly kind: 'killed'; readonly node: string }
  | { readonly kind: 'latency'; readonly node: string; readonly ms: number }
  | { readonly kind: 'partition'; readonly node: string; readonly hold: boolean }
  | { readonly kind: 'proxy-down'; readonly node: string; readonly error: string }
  | { readonly kind: 'clock'; readonly node: string; readonly skewMs: number; readonly rate: number }
  | { readonly kind: 'replication-stall'; readonly node: string; readonly untilMs: number };

/**
 * A primary that is down as the topology's own failure detector sees it, and not yet replaced:
 * Sentinel flags it s_down / o_down (and names its failover state), a Cluster flags it fail? /
 * fail while it still serves slots.
 */
export interface FailoverInProgress {
  readonly by: 'sentinel' | 'cluster';
  /** The primary being replaced. */
  readonly primary: string;
  /** Sentinel: s_down, o_down; Cluster: fail?, fail. */
  readonly flags: readonly string[];
  /** Sentinel's failover-state (select_slave, wait_promotion, ...) when one has started. */
  readonly stage?: string;
  /** Cluster: the replicas that can take over its slots (none: its slots stay down). */
  readonly replicas?: readonly string[];
}

const QUERY_MS = 300;
const DOWN_FLAGS = new Set(['s_down', 'o_down', 'fail?', 'fail']);

const nodeAt = (sup: Supervisor, port: number): string => sup.state.nodes.find((n) => n.port === port)?.name ?? `127.0.0.1:${port}`;

function proxyFault(node: string, mode: ProxyMode): Fault | undefined {
  if (mode.kind === 'latency') return { kind: 'latency', node, ms: mode.ms };
  if (mode.kind === 'cut' || mode.kind === 'hold') return { kind: 'partition', node, hold: mode.kind === 'hold' };
  return undefined;
}

async function proxyFaults(sup: Supervisor): Promise<Fault[]> {
  const proxied = sup.state.nodes.filter((n) => n.proxy);
  if (proxied.length === 0) return [];
  try {
    const proxies = await proxyRequest(controlSocketPath(sup.dir), { op: 'status' }, QUERY_MS * 3);
    return proxies.flatMap((p) => proxyFault(p.node, p.mode) ?? []);
  } catch (err) {
    // No proxy process: every client of these nodes is refused, which is a fault too.
    return proxied.map((n) => ({ kind: 'proxy-down', node: n.name, error: (err as Error).message }));
  }
}

/** A node under libfaketime whose clock a `clock` verb moved: its skew as measured by TIME now. */
async function clockFault(sup: Supervisor, node: NodeRecord): Promise<Fault | undefined> {
  const file = fakeClockFile(node.env);
  const spec = file ? readClockSpec(resolve(nodeDir(sup.dir, node.name), file)) : undefined;
  if (!spec || (spec.offsetMs === 0 && spec.rate === 1)) return undefined;
  const before = Date.now();
  const time = await call(node.port, ['TIME'], QUERY_MS).catch(() => null);
  if (!Array.isArray(time)) return { kind: 'clock', node: node.name, skewMs: spec.offsetMs ?? 0, rate: spec.rate };
  const fakeMs = Number(time[0]) * 1000 + Number(time[1]) / 1000;
  return { kind: 'clock', node: node.name, skewMs: Math.round(fakeMs - (before + Date.now()) / 2), rate: spec.rate };
}

function processFault(node: NodeRecord, live: string): Fault | undefined {
  if (live === 'paused') return { kind: 'paused', node: node.name };
  if (live === 'killed') return { kind: 'killed', node: node.name };
  return undefined;
}

/** Every fault in force on the sandbox's nodes; `live` is each node's process state as status saw it. */
export async function faultsInForce(sup: Supervisor, live: ReadonlyMap<string, string>): Promise<Fault[]> {
  const now = Date.now();
  const running = sup.state.nodes.filter((n) => live.get(n.name) === 'running' && n.role !== 'sentinel');
  const [proxies, clocks] = await Promise.all([proxyFaults(sup), Promise.all(running.map((n) => clockFault(sup, n)))]);
  const stalls = running.flatMap((n): Fault[] =>
    n.stalledUntil !== undefined && n.stalledUntil > now ? [{ kind: 'replication-stall', node: n.name, untilMs: n.stalledUntil }] : [],
  );
  const processes = sup.state.nodes.flatMap((n) => processFault(n, live.get(n.name) ?? 'running') ?? []);
  return [...processes, ...proxies, ...clocks.flatMap((c) => c ?? []), ...stalls];
}

async function sentinelFailover(sup: Supervisor): Promise<FailoverInProgress | undefined> {
  const views = await Promise.all(
    answering(sup, true).map((s) => call(s.port, ['SENTINEL', 'master', MASTER_NAME], QUERY_MS).then(pairs, () => undefined)),
  );
  const down = views.filter((v): v is Record<string, string> => v !== undefined && (v.flags ?? '').split(',').some((f) => DOWN_FLAGS.has(f)));
  const [first] = down;
  if (!first) return undefined;
  const flags = [...new Set(down.flatMap((v) => v.flags!.split(',').filter((f) => DOWN_FLAGS.has(f))))].sort();
  const stage = down.map((v) => v['failover-state']).find((s) => s !== undefined && s !== 'none' && s !== '');
  return { by: 'sentinel', primary: nodeAt(sup, Number(first.port)), flags, ...(stage !== undefined ? { stage } : {}) };
}

/** CLUSTER NODES lines: `<id> <ip:port@bus> <flags> <master-id> ... <slots...>`. */
async function clusterFailover(sup: Supervisor): Promise<FailoverInProgress | undefined> {
  for (const node of answering(sup, false)) {
    const text = await call(node.port, ['CLUSTER', 'NODES'], QUERY_MS).catch(() => null);
    if (typeof text !== 'string') continue;
    const rows = text.split('\n').filter(Boolean).map((l) => l.split(' '));
    const portOf = (row: string[]): number => Number(row[1]!.split('@')[0]!.split(':').pop());
    const failing = rows.find((r) => r[2]!.split(',').includes('master') && r[2]!.split(',').some((f) => DOWN_FLAGS.has(f)) && r.length > 8);
    if (!failing) return undefined;
    const replicas = rows.filter((r) => r[3] === failing[0] && !r[2]!.split(',').some((f) => DOWN_FLAGS.has(f))).map((r) => nodeAt(sup, portOf(r)));
    const flags = failing[2]!.split(',').filter((f) => DOWN_FLAGS.has(f));
    return { by: 'cluster', primary: nodeAt(sup, portOf(failing)), flags, replicas };
  }
  return undefined;
}

/** A failover the topology is going through now, or undefined (none, or a topology without one). */
export function failoverInProgress(sup: Supervisor): Promise<FailoverInProgress | undefined> {
  if (sup.state.topology === 'sentinel') return sentinelFailover(sup);
  if (sup.state.topology === 'cluster') return clusterFailover(sup);
  return Promise.resolve(undefined);
}
