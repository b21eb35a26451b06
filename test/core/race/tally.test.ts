import { describe, expect, it } from 'vitest';
import { RaceTally, TIMED_OUT } from '../../../src/core/race/tally.js';
import type { ClientOp, HistoryEvent } from '../../../src/core/scenario/history.js';

let id = 0;
const op = (t: number, client: string, o: ClientOp, phase: 'invoke' | 'ok' | 'fail', extra: object = {}): HistoryEvent => ({
  kind: 'op',
  t,
  client,
  op: o,
  phase,
  id: phase === 'invoke' ? ++id : id,
  ...extra,
});

describe('RaceTally', () => {
  it('folds acquisitions, waits, holders, queue, shares and losses', () => {
    const tally = new RaceTally([
      { name: 'A', key: 'k' },
      { name: 'B', key: 'k' },
    ]);
    const events: HistoryEvent[] = [
      op(0, 'A', 'acquire', 'invoke'),
      op(2, 'A', 'acquire', 'ok'),
      op(3, 'B', 'acquire', 'invoke'),
      op(20, 'A', 'incr', 'invoke'),
      op(40, 'A', 'incr', 'ok', { accepted: true }),
    ];
    for (const e of events) tally.add(e);
    let s = tally.snapshot(50);
    expect(s.keys[0]).toMatchObject({ key: 'k', holders: ['A'], waiting: 1, acquisitions: 1 });
    expect(tally.holders()).toEqual(['A']);

    for (const e of [
      op(45, 'A', 'release', 'invoke'),
      op(46, 'A', 'release', 'ok', { detail: 'released' }),
      { kind: 'op', t: 1003, client: 'B', op: 'acquire', phase: 'fail', id: 2, detail: TIMED_OUT } as HistoryEvent,
      op(1100, 'B', 'acquire', 'invoke'),
      op(1150, 'B', 'acquire', 'ok'),
      { kind: 'lock-lost', t: 1400, client: 'B', reason: 'the lease ran out' } as HistoryEvent,
      op(1500, 'B', 'release', 'invoke'),
      op(1501, 'B', 'release', 'ok', { detail: 'not-owner' }),
      { kind: 'fault', t: 1200, node: 'B', verb: 'pause', phase: 'invoke', id: 99 } as HistoryEvent,
      { kind: 'fault', t: 1600, node: 'B', verb: 'pause', phase: 'ok', id: 99, detail: 'froze B' } as HistoryEvent,
    ])
      tally.add(e);
    s = tally.snapshot(2000);
    expect(s.acquisitions).toBe(2);
    expect(s.series).toEqual([1, 1]);
    expect(s.waits.count).toBe(2);
    expect(s.waits.max).toBe(50);
    expect(s.timeouts).toBe(1);
    // Lost once, though both the watchdog and the refused release said so.
    expect(s.lostLocks).toBe(1);
    expect(s.notOwner).toBe(1);
    expect(s.increments).toBe(1);
    expect(s.fairness).toBe(1);
    expect(s.shares.map((x) => [x.client, x.share])).toEqual([
      ['A', 0.5],
      ['B', 0.5],
    ]);
    // Listed at the time the fault began.
    expect(s.faults).toEqual(['1.2 s pause B: froze B']);
    expect(s.keys[0]).toMatchObject({ holders: [], waiting: 0 });
  });

  it('a crashed client stops counting and leaves the holders; its successor joins', () => {
    const tally = new RaceTally([{ name: 'A', key: 'k' }]);
    tally.add(op(0, 'A', 'acquire', 'invoke'));
    tally.add(op(1, 'A', 'acquire', 'ok'));
    tally.add(op(5, 'A', 'crash', 'invoke'));
    tally.add(op(6, 'A', 'acquire', 'invoke'));
    tally.addClient('A.1', 'k');
    tally.add(op(7, 'A.1', 'acquire', 'invoke'));
    const s = tally.snapshot(10);
    expect(s.crashed).toBe(1);
    expect(s.keys[0]).toMatchObject({ holders: [], waiting: 1, clients: 1 });
  });

  it('counts naive DELs of another client lock as lost locks', () => {
    const tally = new RaceTally([{ name: 'A', key: 'k' }]);
    tally.add(op(0, 'A', 'acquire', 'invoke'));
    tally.add(op(1, 'A', 'acquire', 'ok'));
    tally.add(op(5, 'A', 'release', 'invoke'));
    tally.add(op(6, 'A', 'release', 'ok', { detail: 'deleted-other' }));
    const s = tally.snapshot(10);
    expect(s.foreignDeletes).toBe(1);
    expect(s.lostLocks).toBe(1);
  });
});
