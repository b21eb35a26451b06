import { describe, expect, it } from 'vitest';
import { TraceChecker } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { FindingStore, OPEN_WINDOWS } from '../../../src/core/trace/finding-store.js';
import { LOSS_HORIZON_MS } from '../../../src/core/trace/open-losses.js';

// A day-long `export` (or live trace) sees lock names by the million: one per order, per job. The
// checker keeps what a finding still needs (holds, waits, losses whose owner may act again) and
// forgets the rest; the exporter's checker keeps no findings either, only the windows of the newest.

const T0 = Date.UTC(2026, 10, 28, 0, 0, 0);
const DAY_MS = 86_400_000;
const tok = (kind: TraceEvent['kind'], t: number, lock: string, owner: string, extra: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t, lock, owner, library: 'token', ...extra });

/** `lock` taken by a, refused to b (who then gives up), and ended by a's release or its lease running out. */
function oneLock(t: number, lock: string, end: 'released' | 'expired'): TraceEvent[] {
  const [a, b] = [`${lock}-a`, `${lock}-b`];
  return [tok('attempt', t, lock, a), tok('acquired', t, lock, a, { leaseMs: 30_000 }), tok('attempt', t + 1, lock, b), tok('refused', t + 1, lock, b, { holders: [a] }), tok(end, t + 2, lock, a, end === 'released' ? { count: 0 } : { holders: [a] })];
}

describe('the checker on a day of distinct lock names', () => {
  it('tracks only the locks of the last minutes: released, expired, their waiters gone, 100,000 names over 24 h', () => {
    const checker = new TraceChecker({ keepFindings: false });
    const LOCKS = 100_000;
    let most = 0;
    for (let i = 0; i < LOCKS; i++) {
      for (const e of oneLock(T0 + Math.floor((i * DAY_MS) / LOCKS), `order:${i}`, i % 2 === 0 ? 'released' : 'expired')) checker.push(e);
      most = Math.max(most, checker.locksTracked);
    }
    // One lock every 864 ms: those lost within the loss horizon (5 min) and its sweep (1 min), not 100,000.
    expect(most).toBeLessThan((2 * (LOSS_HORIZON_MS + 60_000)) / 864);
    expect(checker.findings).toEqual([]);
  });

  it('still finds an owner acting after its lease ran out while other locks come and go, within the loss horizon', () => {
    const checker = new TraceChecker({ keepFindings: false });
    const found: string[] = [];
    const push = (e: TraceEvent) => found.push(...checker.push(e).filter((f) => !f.update).map((f) => f.kind));
    for (const e of [tok('acquired', T0, 'jobs', 'A', { leaseMs: 1000 }), tok('expired', T0 + 1000, 'jobs', 'A', { holders: ['A'] })]) push(e);
    // Four minutes of other locks, swept every minute, then A releases as if it still held jobs.
    for (let i = 0; i < 2400; i++) for (const e of oneLock(T0 + 2000 + i * 100, `other:${i}`, 'released')) push(e);
    push(tok('release-refused', T0 + LOSS_HORIZON_MS - 10_000, 'jobs', 'A'));
    expect(found).toEqual(['expired-while-held']);
  });
});

describe('the record of findings issued', () => {
  const finding = (to: number) => ({ kind: 'overlap', lock: 'jobs', from: 0, to, owners: [], clients: [], unsafe: true, message: '' }) as const;

  it('not kept: an empty list, the newest windows remembered to tell an update from a repeat', () => {
    const store = new FindingStore(false);
    const first = store.add(finding(10));
    for (let i = 0; i < OPEN_WINDOWS; i++) store.add(finding(10));
    const newest = store.add(finding(10));
    expect(store.list).toEqual([]);
    expect(store.lengthen(newest, finding(10))).toBe(false);
    expect(store.lengthen(newest, finding(20))).toBe(true);
    // The oldest window was forgotten: its next issue counts as lengthened.
    expect(store.lengthen(first, finding(5))).toBe(true);
  });

  it('kept: every finding in order, replaced in place when its window grows', () => {
    const store = new FindingStore(true);
    const slot = store.add(finding(10));
    store.add(finding(30));
    expect(store.lengthen(slot, finding(5))).toBe(false);
    expect(store.lengthen(slot, finding(20))).toBe(true);
    expect(store.list.map((f) => f.to)).toEqual([20, 30]);
  });
});
