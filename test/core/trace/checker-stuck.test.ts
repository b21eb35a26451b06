import { describe, expect, it } from 'vitest';
import { checkEvents, TraceChecker, type Finding } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { findingLine, findingTally } from '../../../src/core/trace/format.js';
import { A, B, C, every, ev, FAIR_QUEUE, T0, tok, type Who } from './stuck-histories.js';

// The stuck-lock finding on fixture histories: each `why` on the history that shows it, beside
// the same contention when it is healthy (the holder alive, a count returned to 0, a live queue
// head, a reader renewing itself), which must show nothing.

const renewals = (w: Who, from: number, to: number, leaseMs: number) => every(from, to, 300, (t) => ev('renewed', t, w, { leaseMs }));
/** `w` refused every 200 ms from `from` to `to` (inclusive), holders as given. */
const refusals = (w: Who, from: number, to: number, holders: string[], make = ev, extra: Partial<TraceEvent> = {}) =>
  every(from, to, 200, (t) => make('refused', t, w, { holders, ...extra }));
const deadlocks = (events: TraceEvent[]) => checkEvents(events).filter((f) => f.kind === 'deadlock');
const brief = (f: Finding) => ({ why: f.why, owners: f.owners, from: f.from - T0, to: f.to - T0, unsafe: f.unsafe, liveness: f.liveness });

describe('deadlock: a lock nobody alive will free', () => {
  it('no-ttl: a holder that set no TTL and sent nothing since keeps the waiter out; the same holder giving it a lease does not', () => {
    const dead = [tok('acquired', 0, A), ...refusals(B, 200, 1400, [A.owner], tok)];
    expect(deadlocks(dead).map(brief)).toEqual([{ why: 'no-ttl', owners: [A.owner, B.owner], from: 200, to: 1200, unsafe: false, liveness: true }]);
    // SETNX, then EXPIRE: the lock expires when its holder dies; a long hold is contention.
    const alive = [tok('acquired', 0, A), tok('renewed', 50, A, { leaseMs: 5000 }), ...refusals(B, 200, 3000, [A.owner], tok)];
    expect(deadlocks(alive)).toEqual([]);
  });

  it('count-left: a release that left the count at 1, then only renewals, keeps the waiter out; a nested hold given back in full sooner does not', () => {
    const start = [ev('acquired', 0, A, { count: 1, leaseMs: 900 }), ev('acquired', 150, A, { count: 2, leaseMs: 900 })];
    const stuck = [...start, ev('released', 300, A, { count: 1 }), ...renewals(A, 400, 2200, 900), ...refusals(B, 400, 2200, [A.owner])].sort((x, y) => x.t - y.t);
    const [f] = deadlocks(stuck);
    expect(f && brief(f)).toEqual({ why: 'count-left', owners: [A.owner, B.owner], from: 400, to: 1400, unsafe: false, liveness: true });
    expect(f?.message).toContain('left its hold count at 1');
    // The outer hold works on after the inner release, renewing, and gives it back within the bound.
    const nested = [...start, ev('released', 300, A, { count: 1 }), ...renewals(A, 400, 2200, 900), ...refusals(B, 400, 800, [A.owner]), ev('released', 900, A, { count: 0 }), ev('acquired', 950, B, { count: 1, leaseMs: 900 })].sort((x, y) => x.t - y.t);
    expect(deadlocks(nested)).toEqual([]);
  });

  it('a 3 s wait behind a holder that renews and then releases is contention; behind the same holder after a release that left its count at 1, a deadlock', () => {
    const wait = [...renewals(A, 300, 3000, 900), ...refusals(B, 100, 3000, [A.owner])];
    const healthy = [ev('acquired', 0, A, { count: 1, leaseMs: 900 }), ...wait, ev('released', 3050, A, { count: 0 }), ev('acquired', 3060, B, { count: 1, leaseMs: 900 })].sort((x, y) => x.t - y.t);
    // No deadlock; a wait past three leases behind renewals alone is the starvation checker's to judge
    // (checker-starvation.test.ts), not this one's.
    expect(deadlocks(healthy)).toEqual([]);
    const leaked = [ev('acquired', 0, A, { count: 2, leaseMs: 900 }), ev('released', 50, A, { count: 1 }), ...wait].sort((x, y) => x.t - y.t);
    expect(deadlocks(leaked).map((f) => f.why)).toEqual(['count-left']);
  });

  it('dead-queue-head: a free fair lock whose queue head sent nothing keeps the waiter behind it out; a live head takes it at once', () => {
    const queue = FAIR_QUEUE;
    const dead = [...queue, ...refusals(C, 600, 3400, []), ev('acquired', 3610, C, { count: 1, leaseMs: 1000 })];
    expect(deadlocks(dead).map(brief)).toEqual([{ why: 'dead-queue-head', owners: [B.owner, C.owner], from: 500, to: 3610, unsafe: false, liveness: true }]);
    const live = [...queue, ev('acquired', 510, B, { count: 1, leaseMs: 5000 }), ...refusals(C, 600, 3400, [B.owner]), ev('released', 3500, B, { count: 0 })];
    expect(deadlocks(live)).toEqual([]);
  });

  it("orphan-hold: a reader past its own lease, never renewed, keeps the writer out after the live reader left; a reader renewing itself does not", () => {
    const readers = [ev('reader-join', 0, A, { count: 1, shared: true, leaseMs: 1500 }), ev('reader-join', 100, B, { count: 1, shared: true, leaseMs: 1500 }), ...renewals(B, 600, 1600, 1500)];
    const orphan = [...readers, ...refusals(C, 1000, 1000, [A.owner, B.owner]), ev('reader-leave', 2000, B, { count: 0, shared: true }), ev('refused', 2100, C, { holders: [A.owner] }), ev('expired', 3100, A, { holders: [A.owner], shared: true }), ev('acquired', 3105, C, { count: 1, leaseMs: 1000 })].sort((x, y) => x.t - y.t);
    expect(deadlocks(orphan).map(brief)).toEqual([{ why: 'orphan-hold', owners: [A.owner, C.owner], from: 2000, to: 3100, unsafe: false, liveness: true }]);
    const alive = [...readers, ...renewals(A, 500, 2200, 1500), ...refusals(C, 1000, 1000, [A.owner, B.owner]), ev('reader-leave', 2000, B, { count: 0, shared: true }), ev('refused', 2100, C, { holders: [A.owner] })].sort((x, y) => x.t - y.t);
    expect(deadlocks(alive)).toEqual([]);
  });

  it('orphan-hold is seen at the expiry too, when the writer was refused after the lease ran out but not after the live reader left', () => {
    const events = [ev('reader-join', 0, A, { count: 1, shared: true, leaseMs: 1500 }), ev('reader-join', 100, B, { count: 1, shared: true, leaseMs: 1500 }), ...renewals(B, 600, 1800, 1500), ev('refused', 1700, C, { holders: [A.owner, B.owner] }), ev('reader-leave', 2000, B, { count: 0, shared: true }), ev('expired', 3300, A, { holders: [A.owner], shared: true })].sort((x, y) => x.t - y.t);
    expect(deadlocks(events).map(brief)).toEqual([{ why: 'orphan-hold', owners: [A.owner, C.owner], from: 2000, to: 3300, unsafe: false, liveness: true }]);
  });

  it('data-key: refusals on a key a plain SET wrote keep the waiters out; a key held since before the trace began is not called stuck', () => {
    const data = [...refusals(A, 0, 1400, [], tok, { data: true }), ...refusals(B, 100, 1500, [], tok, { data: true })].sort((x, y) => x.t - y.t);
    expect(deadlocks(data).map(brief)).toEqual([{ why: 'data-key', owners: [A.owner], from: 0, to: 1000, unsafe: false, liveness: true }]);
    expect(deadlocks([...refusals(A, 0, 3000, [], tok), ...refusals(B, 100, 3100, [], tok)])).toEqual([]);
  });

  it('a long wait issues the finding again at most once a bound (an update), not on every refusal', () => {
    const checker = new TraceChecker();
    const issued = [tok('acquired', 0, A), ...refusals(B, 200, 4200, [A.owner], tok)].flatMap((e) => checker.push(e)).filter((f) => f.kind === 'deadlock');
    expect(issued.map((f) => [f.to - T0, f.update ?? false])).toEqual([[1200, false], [2200, true], [3200, true], [4200, true]]);
    expect(checker.findings.filter((f) => f.kind === 'deadlock').map(brief)).toEqual([{ why: 'no-ttl', owners: [A.owner, B.owner], from: 200, to: 4200, unsafe: false, liveness: true }]);
  });

  it('a waiter back after a minute without a refusal starts a new wait: the window is that one, not since its first try', () => {
    const events = [tok('acquired', 0, A), tok('refused', 100, B, { holders: [A.owner] }), ...refusals(B, 70_000, 71_200, [A.owner], tok)];
    expect(deadlocks(events).map(brief)).toEqual([{ why: 'no-ttl', owners: [A.owner, B.owner], from: 70_000, to: 71_000, unsafe: false, liveness: true }]);
  });

  it('is shown as liveness in text and counted apart in the tally', () => {
    const [f] = deadlocks([tok('acquired', 0, A), ...refusals(B, 200, 1400, [A.owner], tok)]);
    expect(findingLine(f!)).toMatch(/^~ deadlock \(liveness, no-ttl\) jobs 14:03:07\.200-14:03:08\.200: /);
    expect(findingTally(checkEvents([tok('acquired', 0, A), ...refusals(B, 200, 1400, [A.owner], tok)]))).toBe('0 unsafe, 1 liveness, 1 warnings');
  });
});
