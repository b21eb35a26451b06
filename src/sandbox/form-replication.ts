import { call, parseInfo, pipeline } from './resp.js';
import { until } from './wait.js';

const PROBE_KEY = 'redlock-cli:sandbox:probe';

/**
 * Waits until the replication stream is live, not just linked: right after
 * `master_link_status:up` a replica may still receive nothing for up to ~1 s (docs/fault-recipes.md),
 * so a probe SET must be acknowledged by every replica through WAIT on the same connection.
 */
export async function waitReplicationLive(primaryPort: number, replicaPorts: readonly number[], signal?: AbortSignal): Promise<void> {
  if (replicaPorts.length === 0) return;
  await until(
    `${replicaPorts.length} replica(s) to link to the primary on port ${primaryPort}`,
    async () => {
      const infos = await Promise.all(replicaPorts.map((p) => call(p, ['INFO', 'replication'], 500)));
      return infos.every((info) => parseInfo(info).master_link_status === 'up');
    },
    { signal, timeoutMs: 10_000 },
  );
  const n = replicaPorts.length;
  await until(
    `a probe write on port ${primaryPort} to reach all ${n} replicas`,
    async () => {
      const [, acked] = await pipeline(primaryPort, [['SET', PROBE_KEY, '1'], ['WAIT', n, 50]], 1000);
      return acked === n;
    },
    { signal, timeoutMs: 5000, intervalMs: 5 },
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
