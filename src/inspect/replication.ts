import type { ReplicaView } from '../core/lock-view.js';

/**
 * Replicas of the node that answered, from `INFO replication` taken right after the snapshot:
 * lag = the primary's offset minus the offset each replica last acknowledged (replicas ack once
 * a second, so a healthy replica may show a small lag for up to a second). Undefined on a
 * replica or a primary without replicas.
 */
export function parseReplicas(info: string): ReplicaView[] | undefined {
  if (!/^role:master\r?$/m.test(info)) return undefined;
  const primary = /^master_repl_offset:(\d+)/m.exec(info);
  if (!primary) return undefined;
  const offset = Number(primary[1]);
  const replicas: ReplicaView[] = [];
  for (const match of info.matchAll(/^slave\d+:(.*)$/gm)) {
    const fields = new Map(match[1]!.trim().split(',').map((kv) => kv.split('=') as [string, string]));
    const replicaOffset = Number(fields.get('offset') ?? 0);
    replicas.push({ replica: `${fields.get('ip')}:${fields.get('port')}`, offset: replicaOffset, lagBytes: Math.max(0, offset - replicaOffset) });
  }
  return replicas.length > 0 ? replicas : undefined;
}
