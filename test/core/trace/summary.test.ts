import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { TraceSummary } from '../../../src/core/trace/summary.js';

// The summary's per-owner bookkeeping: a wait and a hold of one owner, at once or in turn, and the
// waits dropped as abandoned so a trace of endless tries stays bounded.

const ev = (kind: TraceEvent['kind'], t: number, owner: string, more: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t, lock: 'x', owner, ...more });

function summarise(events: readonly TraceEvent[]) {
  const summary = new TraceSummary();
  for (const e of events) summary.push(e);
  return summary.locks([])[0]!;
}

describe('trace summary per owner', () => {
  it('measures a wait begun while the owner still held the lock from that attempt to its next hold', () => {
    const lock = summarise([
      ev('acquired', 0, 'A', { count: 1, client: { addr: 'c1' } }),
      ev('attempt', 10, 'A', { client: { addr: 'c1' } }), // tries again while holding
      ev('acquired', 12, 'A', { count: 2, client: { addr: 'c1' } }), // a re-entry: no new hold, the wait goes on
      ev('released', 20, 'A', { count: 0, client: { addr: 'c2' } }),
      ev('acquired', 30, 'A', { count: 1, client: { addr: 'c1' } }),
      ev('released', 35, 'A', { count: 0, client: { addr: 'c1' } }),
      ev('expired', 40, 'A'), // no hold left: nothing to measure
    ]);
    expect(lock).toMatchObject({ acquisitions: 2, releases: 2, expiries: 1, clients: 2 });
    // Each figure is the top of its histogram bucket (within 1 %): 20 ms reads 20.095, 5 ms 5.023.
    expect(lock.waitMs).toEqual({ p50: 20.095, p99: 20.095 });
    expect(lock.holdMs).toEqual({ p50: 5.023, p99: 20.095 });
  });

  it('drops waits older than a minute once more than 10,000 owners wait, and never measures them', () => {
    // node-redlock draws a new token per try: 10,001 tries that never got the lock.
    const events = Array.from({ length: 10_001 }, (_, i) => ev('attempt', i, `try${i}`));
    events.push(ev('attempt', 70_000, 'late'), ev('acquired', 70_005, 'late', { count: 1 }), ev('released', 70_006, 'late', { count: 0 }));
    // The first try, forgotten as abandoned: its acquisition is not a 70 s wait.
    events.push(ev('acquired', 70_010, 'try0', { count: 1 }));
    const lock = summarise(events);
    expect(lock.acquisitions).toBe(2);
    expect(lock.waitMs).toEqual({ p50: 5.023, p99: 5.023 });
  });
});
