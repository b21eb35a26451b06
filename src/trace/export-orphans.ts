import { companionFindings } from '../core/doctor.js';
import { createPoller, type Poller } from '../core/poller.js';
import { companionFacts } from '../inspect/doctor-run.js';
import { scanLocks, type FoundCompanion } from '../inspect/scan-locks.js';
import type { Connection } from '../redis/connection.js';
import type { LockView } from '../core/lock-view.js';

// The exporter's orphan count: every interval, one read-only scan of the whole keyspace (the
// one doctor makes) for companion keys (fair queues, read-hold timeouts, permit deadlines)
// whose lock is gone, judged by doctor's own check. A companion's name carries its lock's, so
// it is counted in that lock's group.

const NO_FIX = { redisCli: [], redlockCli: [] };

export interface OrphanScanOptions {
  readonly conn: Connection;
  readonly wants: (lock: string) => boolean;
  readonly intervalMs: number;
  /** Orphans per lock name at the last scan. */
  readonly onCount: (orphansByLock: ReadonlyMap<string, number>) => void;
  readonly onError: () => void;
}

async function countOrphans(conn: Connection, wants: (lock: string) => boolean): Promise<Map<string, number>> {
  const companions: FoundCompanion[] = [];
  const byKey = new Map<string, LockView>();
  for await (const batch of scanLocks(conn, { pattern: '*', onCompanion: (c) => void (wants(c.companion.lock) && companions.push(c)) })) {
    for (const f of batch) byKey.set(f.view.key, f.view);
  }
  const facts = await companionFacts(conn, companions, byKey);
  const lockOf = new Map(facts.map((fact) => [fact.key, fact.companion.lock]));
  const out = new Map<string, number>();
  for (const f of companionFindings(facts, () => NO_FIX)) {
    const lock = typeof f.key === 'string' ? lockOf.get(f.key) : undefined;
    if (lock !== undefined) out.set(lock, (out.get(lock) ?? 0) + 1);
  }
  return out;
}

export function startOrphanScan(opts: OrphanScanOptions): Poller {
  const poller = createPoller({
    intervalMs: opts.intervalMs,
    timeoutMs: Math.max(30_000, opts.intervalMs),
    fetch: () => countOrphans(opts.conn, opts.wants),
    onState: (state) => {
      if (state.type === 'ok') opts.onCount(state.snapshot);
      else if (state.type === 'retrying') opts.onError();
    },
  });
  poller.start();
  return poller;
}
