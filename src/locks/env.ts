import { UsageError } from '../core/errors.js';
import { connect, type Connection, type ConnectMode } from '../redis/connection.js';
import type { TargetSpec } from '../redis/target.js';
import type { LockEnv, PubSubMode } from './types.js';

export interface OpenLockEnvOptions {
  readonly mode: ConnectMode;
  readonly name?: string;
  readonly pubsub: 'auto' | PubSubMode;
  /** Redlock: one target per independent primary. */
  readonly nodes?: readonly TargetSpec[] | undefined;
}

export interface OpenLockEnv extends LockEnv {
  close(): Promise<void>;
}

/**
 * Redisson >= 3.22 publishes with SPUBLISH on a Redis 7+ Cluster (its AUTO mode checks that
 * `PUBSUB SHARDNUMSUB` works); everywhere else it uses PUBLISH. We decide the same way.
 */
export async function resolvePubSub(conn: Connection, wanted: 'auto' | PubSubMode): Promise<PubSubMode> {
  if (wanted !== 'auto') return wanted;
  if (conn.topology !== 'cluster') return 'plain';
  try {
    await conn.client.call('PUBSUB', 'SHARDNUMSUB', '0');
    return 'sharded';
  } catch {
    return 'plain';
  }
}

/** Connects to the target (or every Redlock node) and settles the publish mode. */
export async function openLockEnv(spec: TargetSpec, opts: OpenLockEnvOptions): Promise<OpenLockEnv> {
  const connectOpts = { mode: opts.mode, ...(opts.name ? { name: opts.name } : {}) };
  const nodes: Connection[] = [];
  try {
    if (opts.nodes && opts.nodes.length > 0) {
      for (const node of opts.nodes) nodes.push(await connect(node, connectOpts));
    }
    const conn = nodes[0] ?? (await connect(spec, connectOpts));
    const pubsub = await resolvePubSub(conn, opts.pubsub);
    return {
      conn,
      nodes,
      pubsub,
      now: Date.now,
      close: async () => {
        await Promise.all((nodes.length > 0 ? nodes : [conn]).map((c) => c.close()));
      },
    };
  } catch (err) {
    await Promise.all(nodes.map((c) => c.close()));
    throw err;
  }
}

/** `--nodes url,url,...` for Redlock: at least 3 independent primaries make a majority meaningful. */
export function parseNodeUrls(text: string | undefined): TargetSpec[] {
  if (!text) throw new UsageError('--kind redlock needs --nodes redis://host:port,redis://host:port,... (3 or more)');
  const urls = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (urls.length < 2) throw new UsageError('--nodes needs at least 2 Redis URLs (3 or more for a real Redlock majority)');
  return urls.map((url) => ({ url: url.includes('://') ? url : `redis://${url}` }));
}
