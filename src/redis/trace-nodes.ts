import type { Redis } from 'ioredis';
import { CONDITIONAL_DELETES, conditionTokens, type ServerCommands } from '../core/trace/server-commands.js';
import { connect, nodeClient, nodeEndpoint, replyTimeoutOf } from './connection.js';
import { toCliError } from './errors.js';
import type { MonitorEndpoint } from './monitor.js';
import { formatHostPort, type HostPort, type TargetSpec } from './target.js';

// What `trace` needs to know about a target besides the command stream itself, all read-only:
// which primaries to follow (every Cluster primary; Sentinel's current master), the names of the
// clients already connected (CLIENT LIST), which Sentinel master is current after a failover,
// and whether a lock still exists on a newly promoted primary.

export interface TracePlan {
  /** `redlock`: independent primaries named by the user (`--nodes`, a Redlock sandbox), one lock on each. */
  readonly topology: 'standalone' | 'sentinel' | 'cluster' | 'redlock';
  /** One endpoint per primary, credentials included (never printed). */
  readonly primaries: readonly MonitorEndpoint[];
}

const NAME = 'redlock-cli:trace';

const endpoint = (spec: TargetSpec, node: HostPort): MonitorEndpoint => nodeEndpoint(spec, node, NAME);

/**
 * The primaries to follow: Redlock's independent nodes as given (each with its own credentials and
 * TLS, as every connection resolves them), else found through the target's own connection
 * (Cluster slots, Sentinel).
 */
export async function tracePlan(spec: TargetSpec, redlockNodes?: readonly TargetSpec[]): Promise<TracePlan> {
  if (redlockNodes) return { topology: 'redlock', primaries: redlockNodes.map((node) => endpoint(node, node)) };
  if (spec.sentinels) {
    const master = await sentinelMaster(spec);
    return { topology: 'sentinel', primaries: [endpoint(spec, master)] };
  }
  // connect() also finds out when a plain URL names a Cluster node: then the whole Cluster is traced.
  const conn = await connect(spec, { mode: 'one-shot', name: NAME });
  try {
    if (conn.topology !== 'cluster') return { topology: 'standalone', primaries: [endpoint(spec, spec)] };
    const cluster = conn.client as Extract<typeof conn.client, { nodes: unknown }>;
    const nodes = cluster.nodes('master').map((c) => ({ host: String(c.options.host), port: Number(c.options.port) }));
    return { topology: 'cluster', primaries: nodes.map((n) => endpoint(spec, n)) };
  } finally {
    await conn.close();
  }
}

/** Runs `fn` on a short-lived connection to the node; errors name the node. */
export async function withNode<T>(ep: MonitorEndpoint, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = nodeClient(ep, 'one-shot', { connectTimeoutMs: 3000, replyTimeoutMs: 3000 });
  try {
    await client.connect();
    return await fn(client);
  } catch (err) {
    throw toCliError(err, formatHostPort(ep), ep.username);
  } finally {
    client.disconnect();
  }
}

/** Address -> CLIENT SETNAME of every connection on the node now (so early events are named too). */
export function clientNames(ep: MonitorEndpoint): Promise<Map<string, string>> {
  return withNode(ep, async (client) => {
    const list = String(await client.call('CLIENT', 'LIST'));
    const names = new Map<string, string>();
    for (const line of list.split('\n')) {
      const addr = / addr=(\S+)/.exec(` ${line}`)?.[1];
      const name = / name=(\S*)/.exec(` ${line}`)?.[1];
      if (addr && name) names.set(addr, name);
    }
    return names;
  });
}

/**
 * The conditional writes the node has, from its command table (COMMAND DOCS SET, COMMAND INFO
 * DELIFEQ DELEX); undefined when it will not say (no COMMAND DOCS before 7.0, an ACL): then the
 * trace shows their outcome as unknown rather than guess.
 */
export function serverCommands(ep: MonitorEndpoint): Promise<ServerCommands | undefined> {
  return withNode(ep, async (client) => {
    try {
      const docs = await client.call('COMMAND', 'DOCS', 'SET');
      const info = (await client.call('COMMAND', 'INFO', ...CONDITIONAL_DELETES)) as unknown[];
      const deletes = new Set(CONDITIONAL_DELETES.filter((_, i) => Array.isArray(info[i])));
      return { setConditions: conditionTokens(docs), deletes };
    } catch {
      return undefined;
    }
  });
}

/** Which of `keys` exist on the node (EXISTS, one round trip each in a pipeline). */
export function keysPresent(ep: MonitorEndpoint, keys: readonly string[]): Promise<boolean[]> {
  return withNode(ep, async (client) => {
    const replies = (await client.pipeline(keys.map((k) => ['exists', k])).exec()) ?? [];
    return replies.map(([err, n]) => !err && Number(n) === 1);
  });
}

/** The master the first answering sentinel names now; one that does not answer within --timeout is skipped. */
export async function sentinelMaster(spec: TargetSpec): Promise<HostPort> {
  let last: unknown = new Error('no sentinel given');
  // A paused sentinel accepts the connection and never answers: without a reply timeout the
  // trace would wait on it forever instead of asking the next one. The question is sent while
  // connecting (the client connects lazily), so its one timeout bounds the handshake too.
  const replyTimeoutMs = replyTimeoutOf(spec, 'one-shot');
  for (const s of spec.sentinels ?? []) {
    const client = nodeClient(nodeEndpoint(spec, s, NAME, { credentials: false }), 'one-shot', { connectTimeoutMs: 1000, replyTimeoutMs });
    // Why the connection failed (refused, TLS), which the queued question only sees as "closed".
    let connectError: unknown;
    client.on('error', (err) => (connectError ??= err));
    try {
      const addr = (await client.call('SENTINEL', 'get-master-addr-by-name', spec.masterName ?? '')) as string[] | null;
      if (addr) return { host: addr[0]!, port: Number(addr[1]) };
      last = new Error(`sentinel does not know master "${spec.masterName}"`);
    } catch (err) {
      last = connectError ?? err;
    } finally {
      client.disconnect();
    }
  }
  throw toCliError(last, `sentinels ${(spec.sentinels ?? []).map(formatHostPort).join(',')}`);
}

/** One line of CLUSTER NODES: the node, whether it serves as a healthy primary, and its slot ranges. */
interface ClusterNodeLine {
  readonly addr: HostPort;
  readonly primary: boolean;
  readonly ranges: readonly (readonly [number, number])[];
}

/** Parses CLUSTER NODES (`<id> <ip:port@cport> <flags> <master> ... <slot ranges>`). */
export function parseClusterNodes(text: string): ClusterNodeLine[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const [, address = '', flags = '', , , , , , ...slots] = line.trim().split(' ');
      const hostPort = address.split('@')[0] ?? '';
      const at = hostPort.lastIndexOf(':');
      const ranges = slots
        .filter((s) => /^\d+(-\d+)?$/.test(s))
        .map((s) => s.split('-').map(Number) as number[])
        .map(([from, to]) => [from!, to ?? from!] as const);
      const flagList = flags.split(',');
      return { addr: { host: hostPort.slice(0, at), port: Number(hostPort.slice(at + 1)) }, primary: flagList.includes('master') && !flagList.some((f) => f === 'fail' || f === 'fail?'), ranges };
    });
}

/** A slot `node` serves in `view` (its first), or undefined when it serves none. */
export function slotOf(view: readonly ClusterNodeLine[], node: HostPort): number | undefined {
  return view.find((n) => formatHostPort(n.addr) === formatHostPort(node))?.ranges[0]?.[0];
}

/** The healthy primary that serves `slot` in `view`, if any. */
export function primaryOfSlot(view: readonly ClusterNodeLine[], slot: number): HostPort | undefined {
  return view.find((n) => n.primary && n.ranges.some(([from, to]) => slot >= from && slot <= to))?.addr;
}

/** CLUSTER NODES as the first of `nodes` that answers sees it (read-only). */
export async function clusterView(nodes: readonly MonitorEndpoint[]): Promise<ClusterNodeLine[]> {
  let last: unknown = new Error('no node to ask');
  for (const node of nodes) {
    try {
      return parseClusterNodes(String(await withNode(node, (client) => client.call('CLUSTER', 'NODES'))));
    } catch (err) {
      last = err;
    }
  }
  throw last;
}
