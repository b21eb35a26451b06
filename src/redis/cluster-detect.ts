import type { Redis } from 'ioredis';
import type { ParsedUrl, TargetSpec } from './target.js';

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
export function clusterSeedSpec(spec: TargetSpec, url: ParsedUrl): TargetSpec {
  return { ...spec, clusterNodes: [{ host: url.host, port: url.port }] };
}
