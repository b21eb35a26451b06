import { UsageError } from '../core/errors.js';
import { loopbackEndpoint } from '../core/endpoint.js';
import type { TargetSpec } from '../redis/target.js';
import type { SandboxHandle } from '../sandbox/handle.js';
import type { NodeRecord } from '../sandbox/types.js';

// Where clients and the runner's own eyes connect. Clients go through the sandbox's fault proxy
// when it has one (so latency / partition faults reach them); the runner reads the nodes' own
// ports, so it still sees the server while clients are cut off from it.

export const redisNodes = (sandbox: SandboxHandle): NodeRecord[] => sandbox.nodes.filter((n) => n.role !== 'sentinel');

const clientPort = (n: NodeRecord): number => n.proxy?.port ?? n.port;

/** One client-side target per lock env: a single spec, or one per Redlock node (by name). */
export type ClientTargets =
  | { readonly kind: 'single'; readonly spec: TargetSpec; readonly node?: NodeRecord }
  | { readonly kind: 'nodes'; readonly nodes: readonly { readonly node: NodeRecord; readonly spec: TargetSpec }[] };

function sentinelSpec(sandbox: SandboxHandle): TargetSpec {
  const sentinels = sandbox.nodes.filter((n) => n.role === 'sentinel').map((n) => ({ host: '127.0.0.1', port: n.port }));
  return { ...loopbackEndpoint(6379), sentinels, masterName: sandbox.urls.sentinel?.masterName ?? 'mymaster' };
}

/**
 * What clients connect to: the primary as it is now (single, replicated: clients then stay on it,
 * like an application with a fixed URL), the sentinels (they follow failovers), the cluster
 * seeds, or every Redlock node.
 */
export async function clientTargets(sandbox: SandboxHandle): Promise<ClientTargets> {
  switch (sandbox.topology) {
    case 'single':
    case 'replicated': {
      const node = await sandbox.node('primary');
      return { kind: 'single', spec: loopbackEndpoint(clientPort(node)), node };
    }
    case 'sentinel':
      return { kind: 'single', spec: sentinelSpec(sandbox) };
    case 'cluster':
      return {
        kind: 'single',
        spec: { ...loopbackEndpoint(clientPort(redisNodes(sandbox)[0]!)), clusterNodes: redisNodes(sandbox).map((n) => ({ host: '127.0.0.1', port: clientPort(n) })) },
      };
    case 'redlock':
      return { kind: 'nodes', nodes: redisNodes(sandbox).map((node) => ({ node, spec: loopbackEndpoint(clientPort(node)) })) };
  }
}

/** The runner's view of one place the lock lives: a Redlock node, or "the primary" however it is found now. */
export interface ReadTarget {
  /** Node name for server events; undefined when only known once connected (sentinel, replicated). */
  readonly node?: string;
  resolve(): Promise<TargetSpec>;
}

/** The runner reads every Redlock node, or the current primary (asked again after each reconnect). */
export function readTargets(sandbox: SandboxHandle): ReadTarget[] {
  switch (sandbox.topology) {
    case 'redlock':
      return redisNodes(sandbox).map((n) => ({ node: n.name, resolve: async () => loopbackEndpoint(n.port) }));
    case 'sentinel': {
      const spec = sentinelSpec(sandbox);
      return [{ resolve: async () => spec }];
    }
    case 'cluster': {
      const nodes = redisNodes(sandbox).map((n) => ({ host: '127.0.0.1', port: n.port }));
      return [{ node: 'cluster', resolve: async () => ({ ...loopbackEndpoint(nodes[0]!.port), clusterNodes: nodes }) }];
    }
    case 'single':
    case 'replicated':
      return [{ resolve: async () => loopbackEndpoint((await sandbox.node('primary')).port) }];
  }
}

/** The node a port belongs to (its own port, not its proxy's). */
export function nodeByPort(sandbox: SandboxHandle, port: number): string | undefined {
  return sandbox.nodes.find((n) => n.port === port || n.proxy?.port === port)?.name;
}

/** Client partitions need to put a proxy between one client and each node it uses. */
export function checkClientPartitions(sandbox: SandboxHandle): void {
  if (sandbox.topology === 'sentinel' || sandbox.topology === 'cluster') {
    throw new UsageError(
      `client partition steps work on single, replicated and redlock sandboxes: on ${sandbox.topology} the servers hand clients the nodes' own addresses, past any per-client proxy (cut a node off with a partition fault instead)`,
    );
  }
}
