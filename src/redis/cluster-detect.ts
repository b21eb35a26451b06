import type { Redis } from 'ioredis';
import type { Endpoint } from '../core/endpoint.js';

// A URL that names one node of a Redis Cluster is a Cluster (as `redis-cli -c` follows the
// redirects): without this, every key outside that node's slots fails with a raw MOVED and SCAN
// sees one node's share of the keys.

/** Whether the server behind this connection runs in cluster mode; false when INFO is not allowed (an ACL user). */
export async function isClusterNode(client: Redis): Promise<boolean> {
  try {
    const info = (await client.info('cluster')) as unknown;
    return typeof info === 'string' && /^cluster_enabled:1\s*$/m.test(info);
  } catch {
    return false;
  }
}

/** The spec that reaches the whole Cluster through the one node a URL named (credentials and TLS kept). */
export function clusterSeedSpec(spec: Endpoint): Endpoint {
  return { ...spec, clusterNodes: [{ host: spec.host, port: spec.port }] };
}

/** A Cluster primary as the slot map knows it, whether or not it answers. */
export interface ClusterPrimary {
  /** host:port as the Cluster announces it. */
  readonly node: string;
  /** Its slot ranges, e.g. `0-5460` or `0-100,200-300`. */
  readonly slots: string;
}

/** Every primary in the slot map (ioredis's copy of CLUSTER SLOTS) with the ranges it serves, in slot order. */
export function clusterPrimaries(slotOwners: readonly (readonly string[] | undefined)[]): ClusterPrimary[] {
  const ranges = new Map<string, [number, number][]>();
  slotOwners.forEach((owners, slot) => {
    const node = owners?.[0];
    if (node === undefined) return;
    const list = ranges.get(node) ?? ranges.set(node, []).get(node)!;
    const last = list[list.length - 1];
    if (last && last[1] === slot - 1) last[1] = slot;
    else list.push([slot, slot]);
  });
  return [...ranges].map(([node, list]) => ({ node, slots: list.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(',') }));
}
