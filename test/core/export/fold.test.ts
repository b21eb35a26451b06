import { describe, expect, it } from 'vitest';
import { ExportFold, type CounterName, type MetricSink } from '../../../src/core/export/fold.js';
import type { FindingKind } from '../../../src/core/trace/finding-kinds.js';
import { LockGrouper } from '../../../src/core/export/groups.js';
import { PollDiff } from '../../../src/core/export/poll-events.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { KeyspaceDecoder, type KeyspaceNotice } from '../../../src/core/trace/keyspace-decoder.js';
import type { LockView } from '../../../src/core/lock-view.js';

/** A sink that remembers what it was told, in order. */
function recorder() {
  const counts: Partial<Record<CounterName, number>> = {};
  const waits: [string, number][] = [];
  const holds: number[] = [];
  const found: [string, FindingKind][] = [];
  const sink: MetricSink = {
    count: (c) => void (counts[c] = (counts[c] ?? 0) + 1),
    found: (l, f) => void found.push([l.group, f]),
    wait: (_l, outcome, s) => void waits.push([outcome, s]),
    hold: (_l, s) => void holds.push(s),
  };
  return { sink, counts, waits, holds, found };
}

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa:1';
const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb:1';
const ev = (kind: TraceEvent['kind'], t: number, owner: string, extra: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t, lock: 'orders:1', owner, library: 'redisson', ...extra });

describe('the exporter fold', () => {
  it('times a wait from the first attempt to the acquisition, and a hold to its release', () => {
    const r = recorder();
    const fold = new ExportFold(new LockGrouper([]), r.sink);
    fold.push([ev('attempt', 0, A), ev('acquired', 0, A, { leaseMs: 300, count: 1 }), ev('attempt', 10, B), ev('refused', 10, B), ev('attempt', 60, B), ev('refused', 60, B)]);
    expect(fold.gauges(100)).toEqual([{ labels: { group: 'orders:{n}', kind: 'reentrant', library: 'redisson' }, holders: 1, waiters: 1, oldestHoldSeconds: 0.1, oldestLeaseLeftSeconds: 0.2 }]);
    fold.push([ev('released', 120, A, { count: 0 }), ev('attempt', 125, B), ev('acquired', 125, B, { leaseMs: 300, count: 1 })]);
    expect(r.waits).toEqual([['acquired', 0], ['acquired', 0.115]]);
    expect(r.holds).toEqual([0.12]);
    expect(r.counts).toEqual({ acquisitions: 2, refusals: 2, releases: 1 });
  });

  it('counts an expiry, and the expired-while-held finding once the owner releases after it', () => {
    const r = recorder();
    const fold = new ExportFold(new LockGrouper([]), r.sink);
    fold.push([ev('attempt', 0, A), ev('acquired', 0, A, { leaseMs: 100, count: 1 }), ev('expired', 100, A, { leaseMs: 100, holders: [A] }), ev('release-refused', 180, A)]);
    expect(r.counts).toMatchObject({ acquisitions: 1, expiries: 1, releases_refused: 1, expired_while_held: 1 });
    expect(r.holds).toEqual([0.1]);
    expect(fold.gauges(200)).toEqual([]);
  });

  it('counts each finding of the checker once, an update that lengthens it not again: unsafe, liveness and warnings alike', () => {
    const r = recorder();
    const fold = new ExportFold(new LockGrouper([]), r.sink);
    const tok = (kind: TraceEvent['kind'], t: number, owner: string, lock: string, extra: Partial<TraceEvent> = {}) => ev(kind, t, owner, { lock, library: 'token', ...extra });
    // A's lease runs out, B takes the lock, A releases twice as if it still held it: one
    // expired-while-held and one overlap, each lengthened by A's second act (updates).
    fold.push([tok('acquired', 0, A, 'jobs:1', { leaseMs: 100 }), tok('expired', 100, A, 'jobs:1'), tok('acquired', 150, B, 'jobs:1', { leaseMs: 1000 }), tok('release-refused', 200, A, 'jobs:1'), tok('release-refused', 260, A, 'jobs:1')]);
    expect(r.found).toEqual([['jobs:{n}', 'expired-while-held'], ['jobs:{n}', 'overlap']]);
    // Held with no TTL by a holder that sends nothing more, B refused for 1.2 s: no-ttl, then deadlock once.
    const refusals = Array.from({ length: 8 }, (_, i) => tok('refused', 1200 + i * 200, B, 'orders:eu', { holders: [A] }));
    fold.push([tok('acquired', 1000, A, 'orders:eu'), ...refusals]);
    expect(r.found.slice(2)).toEqual([['orders:eu', 'no-ttl'], ['orders:eu', 'deadlock']]);
  });

  it('keeps a fair waiter\'s wait across the queue-leave its acquisition pops', () => {
    const r = recorder();
    const fold = new ExportFold(new LockGrouper([]), r.sink);
    fold.push([ev('attempt', 0, B), ev('refused', 0, B), ev('queue-join', 0, B), ev('queue-leave', 40, B), ev('acquired', 40, B, { leaseMs: 300, count: 1 })]);
    expect(r.waits).toEqual([['acquired', 0.04]]);
    expect(fold.labelsOf('orders:1').kind).toBe('fair');
  });

  it('ends a silent waiter\'s wait as abandoned after a minute', () => {
    const r = recorder();
    const fold = new ExportFold(new LockGrouper([]), r.sink);
    fold.push([ev('attempt', 0, B), ev('refused', 0, B), ev('attempt', 500, B), ev('refused', 500, B)]);
    fold.sweep(30_000);
    expect(r.waits).toEqual([]);
    fold.sweep(61_000);
    expect(r.waits).toEqual([['abandoned', 0.5]]);
    expect(fold.gauges(61_000)).toEqual([]);
  });
});

describe('the exporter fold on keyspace events whose owner no reading showed', () => {
  it('counts the hold all the same: a token lock set and released before its read-back', () => {
    const r = recorder();
    const fold = new ExportFold(new LockGrouper([]), r.sink);
    const decoder = new KeyspaceDecoder();
    const t0 = 1_000;
    // The first hold is read back in time; the second's reading came after its DEL (a busy server).
    const notices: KeyspaceNotice[] = [
      { t: t0, key: 'jobs:1', event: 'set', reading: { exists: true, value: 'tok-a', pttl: 300 } },
      { t: t0 + 20, key: 'jobs:1', event: 'del' },
      { t: t0 + 21, key: 'jobs:1', event: 'set', reading: { exists: false, pttl: -2 } },
      { t: t0 + 45, key: 'jobs:1', event: 'del' },
    ];
    const events = notices.flatMap((n) => decoder.push(n));
    expect(events.map((e) => [e.kind, e.owner])).toEqual([['acquired', 'tok-a'], ['released', 'tok-a'], ['acquired', undefined], ['released', undefined]]);
    fold.push(events);
    expect(r.counts).toMatchObject({ acquisitions: 2, releases: 2 });
    expect(r.holds.map((h) => Math.round(h * 1000))).toEqual([20, 24]);
    expect(fold.gauges(t0 + 50)).toEqual([]);
  });
});

describe('polled snapshots as events', () => {
  const view = (holders: string[], ttlMs: number, readAt: number): LockView => ({ key: 'jobs:1', kind: 'token', type: 'string', ttlMs, holders: holders.map((owner) => ({ owner, count: 1 })), waiters: 0, warnings: [], readAt }) as unknown as LockView;

  it('tells acquisitions, renewals, releases and expiries apart by the lease', () => {
    const d = new PollDiff();
    expect(d.step([view(['t1'], 1000, 0)], 0, true).map((e) => e.kind)).toEqual(['acquired']);
    expect(d.step([view(['t1'], 1000, 500)], 500, true).map((e) => e.kind)).toEqual(['renewed']);
    expect(d.step([view(['t2'], 1000, 700)], 700, true).map((e) => [e.kind, e.owner])).toEqual([['released', 't1'], ['acquired', 't2']]);
    expect(d.step([], 2000, true).map((e) => [e.kind, e.t])).toEqual([['expired', 1700]]);
  });

  it('does not take a lock missing from a limited scan for gone', () => {
    const d = new PollDiff();
    d.step([view(['t1'], 1000, 0)], 0, true);
    expect(d.step([], 100, false)).toEqual([]);
  });
});
