import type { CompanionFact } from '../core/doctor.js';
import { COUNTER_MEMORY_SAMPLE, type LeakedCounters } from '../core/doctor-fencing.js';
import type { Connection } from '../redis/connection.js';
import { scanSources } from './scan.js';

// Doctor's read of leaked fencing counters: the counters whose lock key does not exist, per node,
// and MEMORY USAGE (a read) of at most COUNTER_MEMORY_SAMPLE of them there.

/** Counters without a lock key, grouped by node, each with its sampled memory. */
export async function leakedCounters(conn: Connection, facts: readonly CompanionFact[], bytesOf: (key: string) => Uint8Array | undefined): Promise<LeakedCounters[]> {
  const byNode = new Map<string, string[]>();
  for (const f of facts) {
    // A fenced lock's view with type none is a name with only its counter: nobody holds it now.
    if (f.companion.role !== 'fencing-counter' || f.lock.type !== 'none') continue;
    const keys = byNode.get(f.node) ?? [];
    keys.push(f.key);
    byNode.set(f.node, keys);
  }
  const clients = new Map(scanSources(conn).map((s) => [s.label, s.client]));
  const leaks: LeakedCounters[] = [];
  for (const [node, keys] of byNode) {
    const client = clients.get(node);
    const sample = keys.slice(0, COUNTER_MEMORY_SAMPLE);
    let memory: LeakedCounters['memory'];
    if (client) {
      const pipe = client.pipeline();
      for (const key of sample) pipe.call('MEMORY', 'USAGE', Buffer.from(bytesOf(key) ?? Buffer.from(key)));
      const replies = (await pipe.exec()) ?? [];
      const sizes = replies.filter(([err, n]) => err === null && typeof n === 'number').map(([, n]) => n as number);
      memory = sizes.length > 0 ? { sampled: sizes.length, bytes: sizes.reduce((a, b) => a + b, 0) } : undefined;
    }
    leaks.push({ node, count: keys.length, memory });
  }
  return leaks;
}
