import { MASTER_NAME } from './config.js';
import type { NodeRecord, SandboxState } from './types.js';

/** Where to point an application (and redlock-cli) at a sandbox. */
export interface SandboxUrls {
  /** redis:// of every redis node by name (through its proxy when it has one). */
  readonly nodes: Readonly<Record<string, string>>;
  /** single / replicated: the primary the sandbox was started with. */
  readonly primary?: string;
  /** sentinel: host:port of each sentinel, the master name, and the `redis-sentinel://h:p,h:p#name` form (Lettuce). */
  readonly sentinel?: { readonly hosts: readonly string[]; readonly masterName: string; readonly url: string };
  /** cluster: the seed list (every node). */
  readonly cluster?: { readonly seeds: readonly string[] };
  /** The connection options of redlock-cli's own commands for this sandbox. */
  readonly cliArgs: readonly string[];
}

const clientPort = (n: NodeRecord): number => n.proxy?.port ?? n.port;
const hostPort = (n: NodeRecord): string => `127.0.0.1:${clientPort(n)}`;
const url = (n: NodeRecord): string => `redis://${hostPort(n)}`;

export function sandboxUrls(state: SandboxState): SandboxUrls {
  const redis = state.nodes.filter((n) => n.role !== 'sentinel');
  const nodes = Object.fromEntries(redis.map((n) => [n.name, url(n)]));
  const first = redis[0];
  switch (state.topology) {
    case 'single':
    case 'replicated':
      return { nodes, ...(first ? { primary: url(first) } : {}), cliArgs: first ? ['--url', url(first)] : [] };
    case 'sentinel': {
      // Sentinels are reached directly: they report the nodes' own ports, not proxies'.
      const hosts = state.nodes.filter((n) => n.role === 'sentinel').map((n) => `127.0.0.1:${n.port}`);
      const sentinel = { hosts, masterName: MASTER_NAME, url: `redis-sentinel://${hosts.join(',')}#${MASTER_NAME}` };
      return { nodes, sentinel, cliArgs: ['--sentinel', hosts.join(','), '--master-name', MASTER_NAME] };
    }
    case 'redlock':
      return { nodes, cliArgs: ['--kind', 'redlock', '--nodes', redis.map(url).join(',')] };
    case 'cluster': {
      const seeds = redis.map(hostPort);
      return { nodes, cluster: { seeds }, cliArgs: ['--cluster', seeds.join(',')] };
    }
  }
}
