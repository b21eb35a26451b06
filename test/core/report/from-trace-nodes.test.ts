import { describe, expect, it } from 'vitest';
import { traceReport } from '../../../src/core/report/from-trace.js';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { EVENTS, NODES } from '../trace/redlock-trace-fixture.js';

// The page model of a trace of Redlock's independent primaries: a lane per node showing who held
// the lock there, the trace's blind period on a node that restarted, its clock step; node events
// drawn (and hovered) on their node's lane; the overlap's band and list entry naming the node
// both majorities counted (the fixture: test/core/trace/redlock-trace-fixture.ts).

const [N1, N2, N3] = NODES as [string, string, string];

function report() {
  const findings = checkEvents(EVENTS, { redlockNodes: NODES }).filter((f) => f.unsafe);
  return traceReport({ subtitle: 'trace --from redlock.ndjson', events: EVENTS, seen: EVENTS.length, findings, locks: [], blind: [] });
}

describe('the page of a multi-node trace', () => {
  it('has a lane per node with who held the lock there, the blind period and the clock step', () => {
    const { lanes } = report().sections[0]!;
    expect(lanes.nodes.map((n) => n.name)).toEqual(NODES);
    const lane = (name: string) => lanes.nodes.find((n) => n.name === name)!;
    expect(lane(N1).holders.map((h) => [h.from, h.holders])).toEqual([[0, ['worker-a']]]);
    // n2: A until the restart lost its key, then B.
    expect(lane(N2).holders.map((h) => [h.from, h.to, h.holders])).toEqual([
      [1, 300, ['worker-a']],
      [400, lanes.end, ['worker-b']],
    ]);
    expect(lane(N2).faults).toEqual([{ from: 100, to: 301, fault: 'blind', open: false }]);
    // n3's step and B's vote there, on the common scale: 50 ms earlier than n3's server stamped them.
    expect(lane(N3).marks.map((m) => [m.t, m.text])).toEqual([[300, 'clock-step (+50 ms)']]);
    expect(lane(N3).holders.map((h) => [h.from, h.holders])).toEqual([[401, ['worker-b']]]);
  });

  it("draws a stepped node's later events where the quorum checker puts them, the card keeping the server's time", () => {
    const section = report().sections[0]!;
    const field = (e: (typeof section.events)[number], key: string) => e.detail.find(([k]) => k === key)?.[1];
    const votesOfB = section.events.filter((e) => e.lane === 'worker-b' && field(e, 'event') === 'acquired');
    // B's votes on n2 and n3 came a millisecond apart; n3's server stamped its own 50 ms ahead.
    expect(votesOfB.map((e) => [field(e, 'node'), e.t, field(e, 'server time')])).toEqual([
      [N2, 400, '2025-11-25 10:00:00.400'],
      [N3, 401, '2025-11-25 10:00:00.451'],
    ]);
    expect(section.note).toBe("8 events; times are the server's (UTC), a node's less its clock steps before them (the card keeps its own)");
  });

  it("keeps a Redlock client holding from its first vote while its other node still has its key", () => {
    const { lanes } = report().sections[0]!;
    const a = lanes.clients.find((c) => c.name === 'worker-a')!;
    expect(a.segments.map((s) => [s.from, s.to, s.state])).toEqual([[0, lanes.end, 'holding']]);
    expect(a.marks.filter((m) => m.kind === 'lost')).toEqual([]);
  });

  it('draws node events on their node lane, with the node in their hover card', () => {
    const onLane = report().sections[0]!.events.filter((e) => NODES.includes(e.lane));
    expect(onLane.map((e) => [e.lane, e.detail.find(([k]) => k === 'event')![1]])).toEqual([
      [N2, 'blind'],
      [N2, 'unblind'],
      [N3, 'clock-step'],
    ]);
    for (const e of onLane) expect(e.detail).toContainEqual(['node', e.lane]);
  });

  it('marks the overlap on the node both majorities counted, and names it', () => {
    const [overlap] = report().sections[0]!.lanes.violations;
    expect(overlap!.kind).toBe('overlap');
    expect(overlap!.clients).toEqual(['worker-a', 'worker-b', N2]);
    expect(overlap!.message).toContain(`${N2} counted for both`);
  });
});
