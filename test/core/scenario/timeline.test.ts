import { describe, expect, it } from 'vitest';
import { rasterize, roundSpan } from '../../../src/core/scenario/timeline-raster.js';
import { deriveLanes, type ClientLane } from '../../../src/core/scenario/timeline.js';
import { bothInSection, events, pauseHistory, staleWrite } from './timeline-fixtures.js';

const segs = (lane: ClientLane | undefined) => lane?.segments.map((s) => [s.from, s.to, s.state, s.holds]);

describe('client lanes', () => {
  it('cuts a client\'s time into waiting, holding, in section, paused and idle', () => {
    const h = events(['A'])
      .op('A', 'acquire', 0, 100, { leaseMs: 500 })
      .op('A', 'enter', 140, 150)
      .op('A', 'pause', 200, 500)
      .op('A', 'leave', 590, 600)
      .op('A', 'release', 700, 710)
      .end(1000)
      .build();
    const lanes = deriveLanes(h);
    expect(lanes.end).toBe(1000);
    expect(segs(lanes.clients[0])).toEqual([
      [0, 100, 'waiting', false],
      [100, 150, 'holding', true],
      [150, 200, 'in-section', true],
      [200, 500, 'paused', true],
      [500, 600, 'in-section', true],
      [600, 700, 'holding', true],
      [700, 1000, 'idle', false],
    ]);
    expect(lanes.clients[0]!.marks).toEqual([{ t: 710, kind: 'release-ok', text: 'release ok' }]);
  });

  it('a crash ends the hold and the section, and nothing after it counts', () => {
    const h = events(['A'])
      .op('A', 'acquire', 0, 10)
      .op('A', 'enter', 20, 30)
      .invoke('A', 'crash', 300)
      .op('A', 'release', 400, 410)
      .end(500)
      .build();
    const lane = deriveLanes(h).clients[0];
    expect(segs(lane)).toEqual([
      [0, 10, 'waiting', false],
      [10, 30, 'holding', true],
      [30, 300, 'in-section', true],
      [300, 500, 'crashed', false],
    ]);
    expect(lane!.marks).toEqual([]);
  });

  it('a section entered without the lock is in section but not holding', () => {
    const h = events(['B']).op('B', 'enter', 100, 100).op('B', 'leave', 200, 200).end(300).build();
    expect(segs(deriveLanes(h).clients[0])).toEqual([
      [0, 100, 'idle', false],
      [100, 200, 'in-section', false],
      [200, 300, 'idle', false],
    ]);
  });

  it('a lock-lost event ends the hold (a note saying "lost" does not); renewals, writes and failures are marks', () => {
    const h = events(['A'])
      .op('A', 'acquire', 0, 0, { leaseMs: 300 })
      .renewed('A', 100, 1)
      .note('A', 120, 'a note that says lost ends nothing')
      .op('A', 'write', 150, 160, { value: 1, token: 7, accepted: false })
      .op('A', 'incr', 170, 180, { read: 0, value: 1 })
      .lost('A', 200, 'the renewal was refused')
      .fail('A', 'release', 300, 310, { detail: 'not owner' })
      .fail('A', 'acquire', 400, 450)
      .end(500)
      .build();
    const lane = deriveLanes(h).clients[0]!;
    expect(segs(lane)).toEqual([
      [0, 200, 'holding', true],
      [200, 400, 'idle', false],
      [400, 450, 'waiting', false],
      [450, 500, 'idle', false],
    ]);
    expect(lane.marks.map((m) => [m.t, m.kind, m.text])).toEqual([
      [100, 'renew-ok', 'watchdog renewed (1)'],
      [120, 'note', 'a note that says lost ends nothing'],
      [160, 'write-rejected', 'write ok (token 7, value 1, REJECTED)'],
      [180, 'incr', 'incr ok (read 0, wrote 1)'],
      [200, 'lost', 'lock lost: the renewal was refused'],
      [310, 'release-fail', 'release FAILED (not owner)'],
      [450, 'acquire-fail', 'acquire FAILED'],
    ]);
  });

  it('live: what is still open runs to now', () => {
    const h = events(['A', 'B']).op('A', 'acquire', 0, 50).invoke('B', 'acquire', 100).invoke('A', 'pause', 200).build();
    const lanes = deriveLanes(h, { now: 800 });
    expect(lanes.end).toBe(800);
    expect(segs(lanes.clients[0])).toEqual([
      [0, 50, 'waiting', false],
      [50, 200, 'holding', true],
      [200, 800, 'paused', true],
    ]);
    expect(segs(lanes.clients[1])).toEqual([
      [0, 100, 'idle', false],
      [100, 800, 'waiting', false],
    ]);
  });
});

describe('node lanes', () => {
  it('faults that last become periods, the others marks, and server reads say who holds it', () => {
    const lanes = deriveLanes(pauseHistory());
    // n3 had nothing happen to it: no lane.
    expect(lanes.nodes.map((n) => n.name)).toEqual(['n1', 'n2']);
    const [n1, n2] = lanes.nodes;
    expect(n1!.holders.map((s) => [s.from, s.to, s.holders])).toEqual([
      [11, 1010, ['A']],
      [1021, 2011, ['B']],
    ]);
    expect(n2!.faults).toEqual([{ from: 300, to: 1300, fault: 'killed', open: false }]);
  });

  it('an unended pause stays open to the end; failover lands on its own lane as a mark', () => {
    const h = events(['A'], ['p1', 'r1'])
      .fault('r1', 'pause', 100)
      .fault('r1', 'partition', 150)
      .fault('r1', 'heal', 300)
      .fault('sandbox', 'failover', 200, 'r1 promoted')
      .end(1000)
      .build();
    const lanes = deriveLanes(h);
    expect(lanes.nodes.map((n) => n.name)).toEqual(['r1', 'sandbox']);
    expect(lanes.nodes[0]!.faults).toEqual([
      { from: 100, to: 1000, fault: 'paused', open: true },
      { from: 150, to: 300, fault: 'partitioned', open: false },
    ]);
    expect(lanes.nodes[1]!.marks).toEqual([{ t: 200, kind: 'fault', text: 'failover' }]);
  });
});

describe('violation windows and columns', () => {
  it('keeps each violation window and flags only the clients it names', () => {
    const lanes = deriveLanes(pauseHistory(), { violations: [bothInSection, staleWrite] });
    expect(lanes.violations.map((v) => [v.kind, v.from, v.to])).toEqual([
      ['mutual-exclusion', 1101, 1700],
      ['stale-write', 1620, 1620],
    ]);
    const raster = rasterize(lanes, 50, 2500); // 50 ms a column
    expect(raster.violations.map((v, i) => (v ? i : -1)).filter((i) => i >= 0)).toEqual(Array.from({ length: 12 }, (_, i) => 22 + i)); // [1101, 1700) is columns 22..33
    const flagged = (name: string) => raster.clients.find((c) => c.name === name)!.cells.filter((c) => c?.violation).length;
    expect([flagged('A'), flagged('B'), flagged('C')]).toEqual([12, 12, 0]);
  });

  it('a section shorter than a column still shows, and columns after the end are empty', () => {
    const h = events(['A']).op('A', 'acquire', 0, 0).op('A', 'enter', 505, 505).op('A', 'leave', 515, 515).build();
    const raster = rasterize(deriveLanes(h, { now: 1000 }), 10, 2000);
    expect(raster.clients[0]!.cells.map((c) => c?.state)).toEqual(['holding', 'holding', 'in-section', 'holding', 'holding', ...Array(5).fill(undefined)]);
  });

  it('axis labels fall on round times; a live span grows in round steps', () => {
    expect(rasterize(deriveLanes(events(['A']).end(2000).build()), 40).ticks).toEqual([
      { col: 0, label: '0' },
      { col: 10, label: '0.5' },
      { col: 20, label: '1' },
      { col: 30, label: '1.5' },
    ]);
    expect([0, 999, 1001, 2100, 7000, 12_000].map((ms) => roundSpan(ms))).toEqual([1000, 1000, 2000, 5000, 10_000, 20_000]);
  });
});
