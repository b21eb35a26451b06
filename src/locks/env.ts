import { CliError, UsageError } from '../core/errors.js';
import { connect, offlineConnection, type Connection, type ConnectionProvider, type ConnectMode } from '../redis/connection.js';
import { closeWithin, CLOSE_TIMEOUT_MS } from '../redis/close.js';
import { toCliError } from '../redis/errors.js';
import { describeTarget, type TargetSpec } from '../redis/target.js';
import { refuseSameServerTwice } from './redlock-identity.js';
import { quorumOf } from './redlock-nodes.js';
import type { LockEnv, PubSubMode } from './types.js';

export interface OpenLockEnvOptions {
  readonly mode: ConnectMode;
  readonly name?: string;
  readonly pubsub: 'auto' | PubSubMode;
  /** Redlock: one target per independent primary. */
  readonly nodes?: readonly TargetSpec[] | undefined;
  /** Pooled connections (the REPL); closing the env then leaves them open. */
  readonly connections?: ConnectionProvider | undefined;
}

export interface OpenLockEnv extends LockEnv {
  close(): Promise<void>;
}

/** Closes the lock's connections, dropping them if Redis does not answer within `timeoutMs` (0: at once). */
export function closeLockEnv(env: OpenLockEnv, timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
  return closeWithin(() => env.close(), env.nodes.length > 0 ? env.nodes : [env.conn], timeoutMs);
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
  if (opts.nodes && opts.nodes.length > 0) return openRedlockEnv(opts.nodes, opts, connectOpts);
  const conn = await openWith(opts, spec, connectOpts);
  try {
    const pubsub = await resolvePubSub(conn, opts.pubsub);
    return { conn, nodes: [], pubsub, now: Date.now, close: () => conn.close() };
  } catch (err) {
    await conn.close();
    throw err;
  }
}

const openWith = (opts: OpenLockEnvOptions, spec: TargetSpec, connectOpts: { mode: ConnectMode; name?: string }): Promise<Connection> =>
  opts.connections ? opts.connections.open(spec, connectOpts) : connect(spec, connectOpts);

/**
 * Connects every Redlock node at once. A node that does not answer becomes an offline stand-in
 * whose votes are errors: Redlock is meant to work with a minority of nodes down, so only a
 * missing majority stops us here.
 */
async function openRedlockEnv(
  specs: readonly TargetSpec[],
  opts: OpenLockEnvOptions,
  connectOpts: { mode: ConnectMode; name?: string },
): Promise<OpenLockEnv> {
  const settled = await Promise.allSettled(specs.map((spec) => openWith(opts, spec, connectOpts)));
  const nodes = settled.map((result, i) =>
    result.status === 'fulfilled' ? result.value : offlineConnection(specs[i]!, toCliError(result.reason, describeTarget(specs[i]!))),
  );
  const close = async (): Promise<void> => void (await Promise.all(nodes.map((c) => c.close())));
  await refuseSameServerTwice(nodes).catch(async (err: unknown) => {
    await close();
    throw err;
  });
  const down = nodes.filter((n) => n.offline);
  if (nodes.length - down.length < quorumOf(nodes.length)) {
    await close();
    const first = down[0]!.offline!;
    throw new CliError(
      `only ${nodes.length - down.length} of ${nodes.length} Redlock nodes answered, a majority is needed: ${down.map((n) => n.offline!.message).join('; ')}`,
      first.exitCode,
    );
  }
  const conn = nodes.find((n) => !n.offline)!;
  return { conn, nodes, pubsub: opts.pubsub === 'auto' ? 'plain' : opts.pubsub, now: Date.now, close };
}

/** Redlock's `--nodes`: at least 3 independent primaries make a majority meaningful. */
export function checkRedlockNodes(nodes: readonly TargetSpec[] | undefined): readonly TargetSpec[] {
  if (!nodes) throw new UsageError('--kind redlock needs --nodes redis://host:port,redis://host:port,... (3 or more)');
  if (nodes.length < 2) throw new UsageError('--nodes needs at least 2 Redis URLs (3 or more for a real Redlock majority)');
  return nodes;
}
