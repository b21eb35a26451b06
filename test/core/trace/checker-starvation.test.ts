import { describe, expect, it } from 'vitest';
import { checkEvents, type Finding } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { A, B, byTime, ev, HUNG, OVERTAKEN, R1, R2, R3, read, T0, W } from './starvation-fixtures.js';

// Starvation from the command stream: a waiter refused while the lock is never free, overtaken by
// later holds or kept out by a holder that only renews. Healthy contention never shows it.

const starvation = (events: TraceEvent[]): Finding[] => checkEvents(byTime(events)).filter((f) => f.kind === 'starvation');

describe('trace checker: starvation', () => {
  it('a writer overtaken by readers that keep the lock in read mode: from its first refusal until the lock came free', () => {
    const [f, ...more] = starvation(OVERTAKEN);
    expect(more).toEqual([]);
    expect([f?.from, f?.to, f?.owners, f?.unsafe]).toEqual([T0 + 100, T0 + 1800, [W.owner, R2!.owner, R3!.owner], false]);
    expect(f?.message).toMatch(/^wwwwwwww… \(W\) was refused catalog from 14:03:07\.100 and was kept out until it came free at 14:03:08\.800, 1700 ms later: 2 holds that began after it asked \(by .*R2.*R3.*\) kept the lock held without a free moment$/);
  });

  it('a waiter kept out by a holder that only renews for more than 3 of its leases: a hung holder', () => {
    const [f, ...more] = starvation(HUNG);
    expect(more).toEqual([]);
    expect([f?.from, f?.to, f?.owners]).toEqual([T0 + 150, T0 + 1450, [B!.owner, A!.owner]]);
    expect(f?.message).toContain('did nothing on the lock but renew it (12 renewals of a 300 ms lease) for more than 3 leases');
  });

  it('healthy contention shows none, where the same readers without a free moment do', () => {
    const handoffs = [
      // A mutex handed over three times: each handover passes through a free lock.
      ev('acquired', 0, A!, { leaseMs: 300, count: 1 }),
      ev('refused', 50, B!, { holders: [A!.owner] }),
      ev('refused', 60, W, { holders: [A!.owner] }),
      ev('released', 200, A!, { count: 0 }),
      ev('acquired', 210, W, { leaseMs: 300, count: 1 }),
      ev('refused', 220, B!, { holders: [W.owner] }),
      ev('released', 400, W, { count: 0 }),
      ev('acquired', 410, A!, { leaseMs: 300, count: 1 }),
      ev('refused', 420, B!, { holders: [A!.owner] }),
      ev('released', 600, A!, { count: 0 }),
      ev('acquired', 610, B!, { leaseMs: 300, count: 1 }),
    ];
    // One reader in ahead of a waiting writer, then the reads end and the writer gets in.
    const oneOvertake = [...read(R1!, 0, 500), ev('refused', 100, W, { holders: [R1!.owner] }), ...read(R2!, 300, 700), ev('refused', 600, W, { holders: [R2!.owner] }), ev('acquired', 710, W, { leaseMs: 1000, count: 1 })];
    // A watchdog holder for less than 3 leases; and one that re-enters (it works) for longer.
    const shortWatchdog = [ev('acquired', 0, A!, { leaseMs: 300, count: 1 }), ev('renewed', 100, A!, { leaseMs: 300 }), ev('refused', 150, B!, { holders: [A!.owner] }), ev('renewed', 200, A!, { leaseMs: 300 }), ev('refused', 700, B!, { holders: [A!.owner] }), ev('released', 900, A!, { count: 0 }), ev('acquired', 910, B!, { leaseMs: 300, count: 1 })];
    const working = [ev('acquired', 0, A!, { leaseMs: 300, count: 1 }), ev('refused', 50, B!, { holders: [A!.owner] }), ...Array.from({ length: 14 }, (_, i) => ev('renewed', 100 * (i + 1), A!, { leaseMs: 300 })), ev('acquired', 500, A!, { leaseMs: 300, count: 2 }), ev('released', 600, A!, { count: 1 }), ev('refused', 1400, B!, { holders: [A!.owner] }), ev('released', 1450, A!, { count: 0 }), ev('acquired', 1460, B!, { leaseMs: 300, count: 1 })];
    // A read lock's own upgrade: refused while it holds the read itself (a deadlock's shape).
    const upgrade = [...read(R1!, 0, 2000), ev('refused', 100, R1!, { holders: [R1!.owner] }), ...read(R2!, 200, 500), ...read(R3!, 400, 900), ev('refused', 1000, R1!, { holders: [R1!.owner] })];
    for (const events of [handoffs, oneOvertake, shortWatchdog, working, upgrade]) expect(starvation(events)).toEqual([]);
    // The stream with one free moment (R1 left before R2 came) gave the writer its chance.
    const withGap = OVERTAKEN.map((e) => (e.owner === R1!.owner && e.t === T0 + 600 ? { ...e, t: T0 + 390 } : e));
    expect([starvation(withGap).length, starvation(OVERTAKEN).length]).toEqual([0, 1]);
  });
});
