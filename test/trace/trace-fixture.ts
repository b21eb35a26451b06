import type { Finding } from '../../src/core/trace/checker.js';
import type { TraceEvent } from '../../src/core/trace/events.js';
import type { TraceSourceKind } from '../../src/trace/feed.js';
import { runTrace, type TraceRunResult } from '../../src/trace/run.js';
import type { TargetSpec } from '../../src/redis/target.js';

/** A live trace running in this process, collecting every event and finding until stop(). */
export interface RunningTrace {
  readonly events: TraceEvent[];
  readonly findings: Finding[];
  readonly status: string[];
  /** Waits until the trace has decoded everything sent so far (a marker lock round trip), then ends it. */
  stop(marker: Marker): Promise<TraceRunResult>;
}

/** Any client that can SET on the traced server (ioredis Redis or Cluster). */
export interface Marker {
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<unknown>;
}

let markers = 0;

/** Starts a trace on `spec`; resolves once MONITOR is running. */
export async function startTrace(
  spec: TargetSpec,
  opts: { record?: string; wants?: (lock: string) => boolean; source?: TraceSourceKind; enableNotifications?: boolean } = {},
): Promise<RunningTrace> {
  const events: TraceEvent[] = [];
  const findings: Finding[] = [];
  const status: string[] = [];
  const abort = new AbortController();
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  const done = runTrace({
    spec,
    wants: opts.wants ?? (() => true),
    signal: abort.signal,
    record: opts.record,
    source: opts.source,
    enableNotifications: opts.enableNotifications,
    onStatus: (text) => status.push(text),
    onStart: () => started(),
    onEvents: (e, f) => {
      events.push(...e);
      findings.push(...f);
    },
  });
  await Promise.race([ready, done]);
  return {
    events,
    findings,
    status,
    async stop(marker: Marker) {
      // The marker's own acquisition arriving proves every earlier line was decoded (one primary, in order).
      const name = `trace-marker-${++markers}`;
      // A lease long enough to still be there when the keyspace source reads the key back.
      await marker.set(name, 'm', 'PX', 5000, 'NX');
      const until = Date.now() + 20_000;
      while (!events.some((e) => e.lock === name && e.kind === 'acquired')) {
        if (Date.now() > until) throw new Error('the trace did not catch up within 20 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      abort.abort();
      const result = await done;
      events.splice(0, events.length, ...events.filter((e) => !e.lock.startsWith('trace-marker-')));
      findings.splice(0, findings.length, ...findings.filter((f) => !f.lock.startsWith('trace-marker-')));
      return result;
    },
  };
}

/** `kind owner` -> count, for comparing with what the clients reported. */
export function tally(events: readonly TraceEvent[], lock: string, kinds: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of events) {
    if (e.lock !== lock || !kinds.includes(e.kind)) continue;
    const key = `${e.kind} ${e.owner}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
