import type { LockView, ReplicaView } from '../core/lock-view.js';
import { atNode } from '../core/endpoint.js';
import { connect, type Connection } from '../redis/connection.js';
import type { InspectKey } from './keys.js';

// inspect says whether each replica HAS the key, read on the replica itself: a replication
// offset difference cannot say it (Sentinel's own pings keep a healthy replica ~134 bytes
// "behind"), and what a failover would promote is exactly what the replica holds.

const REPLICA_TIMEOUT_MS = 1000;

/** PTTL of each key on one replica (-2: not there); throws when the replica cannot be reached. */
async function pttlOn(conn: Connection, address: string, keys: readonly InspectKey[]): Promise<number[]> {
  const at = address.lastIndexOf(':');
  const replica = await connect(
    atNode(conn.spec, { host: address.slice(0, at), port: Number(address.slice(at + 1)) }),
    { mode: 'one-shot', name: 'redlock-cli:inspect-replica', connectTimeoutMs: REPLICA_TIMEOUT_MS, followCluster: false },
  );
  try {
    const pipeline = replica.client.pipeline();
    // A Cluster replica answers reads only after READONLY; elsewhere the command fails harmlessly.
    if (conn.topology === 'cluster') pipeline.call('READONLY');
    for (const key of keys) pipeline.pttl(key);
    const results = (await pipeline.exec()) ?? [];
    return results.slice(conn.topology === 'cluster' ? 1 : 0).map(([err, value]) => {
      if (err) throw err;
      return Number(value);
    });
  } finally {
    await replica.close();
  }
}

/** The views with each replica's own answer: has it (and its TTL there), does not, or not read. */
export async function readOnReplicas(conn: Connection, keys: readonly InspectKey[], views: readonly LockView[]): Promise<LockView[]> {
  const wanted = new Map<string, number[]>(); // replica address -> indexes of the keys it should have
  views.forEach((view, i) => view.replicas?.forEach((r) => (wanted.get(r.replica) ?? wanted.set(r.replica, []).get(r.replica)!).push(i)));
  const answers = new Map<string, Map<number, ReplicaView>>();
  await Promise.all(
    [...wanted].map(async ([address, indexes]) => {
      const byIndex = new Map<number, ReplicaView>();
      answers.set(address, byIndex);
      const base = (i: number): ReplicaView => views[i]!.replicas!.find((r) => r.replica === address)!;
      try {
        const ttls = await pttlOn(conn, address, indexes.map((i) => keys[i]!));
        indexes.forEach((i, j) => byIndex.set(i, { ...base(i), hasKey: ttls[j]! !== -2, ...(ttls[j]! !== -2 ? { ttlMs: ttls[j]! } : {}) }));
      } catch (err) {
        const error = err instanceof Error ? err.message.replace(/^redlock-cli: /, '') : String(err);
        for (const i of indexes) byIndex.set(i, { ...base(i), hasKey: null, error });
      }
    }),
  );
  return views.map((view, i) => (view.replicas ? { ...view, replicas: view.replicas.map((r) => answers.get(r.replica)?.get(i) ?? r) } : view));
}
