import { randomBytes } from 'node:crypto';
import { logPath, nodeDir } from './state.js';

/** The Sentinel master name every sentinel sandbox monitors. */
export const MASTER_NAME = 'mymaster';

// Short Sentinel timers so a failover completes in about two seconds (docs/fault-recipes.md).
const DOWN_AFTER_MS = 500;
const FAILOVER_TIMEOUT_MS = 2000;
/** Sentinel will not fail the same master over again within twice its failover-timeout. */
export const SENTINEL_REFAILOVER_MS = 2 * FAILOVER_TIMEOUT_MS;
const CLUSTER_NODE_TIMEOUT_MS = 2000;

function common(sandboxDir: string, node: string, port: number): string[] {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    'daemonize no',
    `dir ${nodeDir(sandboxDir, node)}`,
    `logfile ${logPath(sandboxDir, node)}`,
    // Puts the config path (inside the sandbox dir) into /proc/<pid>/cmdline, where `down` checks
    // it before signalling the pid; `ps` users see which sandbox a server belongs to too.
    'proc-title-template "{title} {listen-addr} {server-mode} {config-file}"',
  ];
}

export interface RedisConfOptions {
  readonly cluster?: boolean;
}

/**
 * A redis-server without persistence. Disk-based replication sync (`repl-diskless-sync no`) because
 * 7.0's diskless default delays a fresh replica's sync by ~5 s; `rdb-del-sync-files` removes the
 * RDB a sync leaves behind, so a restarted node really comes back empty.
 */
export function redisConf(sandboxDir: string, node: string, port: number, opts: RedisConfOptions = {}): string {
  return [
    ...common(sandboxDir, node, port),
    "save ''",
    'appendonly no',
    'repl-diskless-sync no',
    'rdb-del-sync-files yes',
    ...(opts.cluster ? ['cluster-enabled yes', 'cluster-config-file nodes.conf', `cluster-node-timeout ${CLUSTER_NODE_TIMEOUT_MS}`] : []),
    '',
  ].join('\n');
}

export interface SentinelPeer {
  readonly port: number;
  readonly id: string;
}

export const sentinelId = (): string => randomBytes(20).toString('hex');

/**
 * A sentinel that already knows the replicas and the other sentinels: discovering them through
 * hello messages takes ~2.2 s, declaring them forms the topology in ~0.15 s.
 */
export function sentinelConf(
  sandboxDir: string,
  node: string,
  self: SentinelPeer,
  primaryPort: number,
  replicaPorts: readonly number[],
  peers: readonly SentinelPeer[],
): string {
  const quorum = Math.floor((peers.length + 1) / 2) + 1;
  return [
    ...common(sandboxDir, node, self.port),
    `sentinel myid ${self.id}`,
    `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primaryPort} ${quorum}`,
    `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
    `sentinel failover-timeout ${MASTER_NAME} ${FAILOVER_TIMEOUT_MS}`,
    ...replicaPorts.map((p) => `sentinel known-replica ${MASTER_NAME} 127.0.0.1 ${p}`),
    ...peers.map((p) => `sentinel known-sentinel ${MASTER_NAME} 127.0.0.1 ${p.port} ${p.id}`),
    '',
  ].join('\n');
}
