import { UnreachableError } from '../core/errors.js';
import { logTail } from './node-process.js';
import { call, parseInfo, pipeline } from './resp.js';
import { until } from './wait.js';

const PROBE_KEY = 'redlock-cli:sandbox:probe';

/**
 * How long a replica may take to link: connect, PSYNC, the primary's fork and RDB, the load. Well
 * under a second on a quiet machine; 10 s once ran out on a busy one (a CPU hog per core beside
 * the test suite), so the wait is generous and a timeout says where each replica got to.
 */
export const REPLICA_LINK_TIMEOUT_MS = 30_000;

export interface ReplicaRef {
  readonly port: number;
  /** Its log file: the last lines are quoted when the replica never links. */
  readonly log?: string;
}

/** Where a replica's link stands, for an error: `127.0.0.1:P link down (log: ...)`; undefined once it is up. */
async function linkReport(replica: ReplicaRef): Promise<string | undefined> {
  let state: string;
  try {
    const r = await roleOf(replica.port, 1000);
    if (r.role === 'slave' && r.link === 'up') return undefined;
    state = r.role !== 'slave' ? `link missing (role ${r.role})` : r.link === 'sync' ? 'still in its first sync' : `link ${r.link}`;
  } catch (err) {
    state = `not answering (${err instanceof Error ? err.message : String(err)})`;
  }
  return `127.0.0.1:${replica.port} ${state}${replica.log ? ` (log: ${logTail(replica.log)})` : ''}`;
}

/**
 * Waits until the replication stream is live, not just linked: right after
 * `master_link_status:up` a replica may still receive nothing for up to ~1 s (docs/fault-recipes.md),
 * so a probe SET must be acknowledged by every replica through WAIT on the same connection.
 */
export async function waitReplicationLive(
  primaryPort: number,
  replicas: readonly ReplicaRef[],
  opts: { signal?: AbortSignal | undefined; linkTimeoutMs?: number } = {},
): Promise<void> {
  const { signal } = opts;
  if (replicas.length === 0) return;
  const n = replicas.length;
  try {
    await until(
      `${n} replica(s) to link to the primary on port ${primaryPort}`,
      async () => {
        const infos = await Promise.all(replicas.map((r) => call(r.port, ['INFO', 'replication'], 500)));
        return infos.every((info) => parseInfo(info).master_link_status === 'up');
      },
      { signal, timeoutMs: opts.linkTimeoutMs ?? REPLICA_LINK_TIMEOUT_MS },
    );
  } catch (err) {
    if (!(err instanceof UnreachableError)) throw err;
    const reports = (await Promise.all(replicas.map(linkReport))).filter((r) => r !== undefined);
    throw new UnreachableError(`${err.message}: ${reports.join('; ') || 'every replica links now'}`);
  }
  await until(
    `a probe write on port ${primaryPort} to reach all ${n} replicas`,
    async () => {
      const [, acked] = await pipeline(primaryPort, [['SET', PROBE_KEY, '1'], ['WAIT', n, 50]], 1000);
      return acked === n;
    },
    { signal, timeoutMs: 10_000, intervalMs: 5 },
  );
  // Leave the keyspace empty for the user, and the replicas with it.
  await pipeline(primaryPort, [['DEL', PROBE_KEY], ['WAIT', n, 100]], 1000);
}

export interface RoleInfo {
  readonly role: 'master' | 'slave' | 'unknown';
  /** The node's own replication offset (master_repl_offset), also known while a replica's link is down. */
  readonly offset?: number;
  readonly masterPort?: number;
  /** Replicas: master_link_status, `sync` while the first sync runs. */
  readonly link?: string;
}

/** The node's role and replication offset from INFO replication (ROLE says -1 while a link is down). */
export async function roleOf(port: number, timeoutMs = 500): Promise<RoleInfo> {
  const info = parseInfo(await call(port, ['INFO', 'replication'], timeoutMs));
  const offset = info.master_repl_offset !== undefined ? { offset: Number(info.master_repl_offset) } : {};
  if (info.role === 'master') return { role: 'master', ...offset };
  if (info.role !== 'slave') return { role: 'unknown' };
  const link = info.master_sync_in_progress === '1' ? 'sync' : (info.master_link_status ?? 'unknown');
  return { role: 'slave', masterPort: Number(info.master_port), link, ...offset };
}
