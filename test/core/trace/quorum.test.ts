import { describe, expect, it } from 'vitest';
import { checkEvents, type Finding } from '../../../src/core/trace/checker.js';
import { ClockStepWatch, CLOCK_STEP_MS } from '../../../src/core/trace/clock-steps.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';

// The quorum view of a trace of Redlock's independent primaries: each node holds its own copy of
// the key, and two owners that each hold a majority within their validity at once overlap. Times
// are ms after T0; the nodes are five, so a majority is three.

const T0 = 1_764_064_800_000;
const NODES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const [A, B] = ['a1b2c3d4e5f6a7b8c9d0', 'f0e9d8c7b6a5f4e3d2c1'];
const ev = (ms: number, kind: TraceEvent['kind'], node: string, owner: string | undefined, extra: Partial<TraceEvent> = {}): TraceEvent => ({
  kind,
  t: T0 + ms,
  lock: owner === undefined ? '*' : 'payments',
  node,
  library: 'token',
  ...(owner !== undefined ? { owner } : {}),
  ...extra,
});
const take = (ms: number, node: string, owner: string, leaseMs: number) => ev(ms, 'acquired', node, owner, { leaseMs, count: 1 });
const free = (ms: number, node: string, owner: string) => ev(ms, 'released', node, owner, { count: 0 });
const unsafe = (findings: readonly Finding[]) => findings.filter((f) => f.unsafe).map((f) => [f.kind, f.owners.join(','), f.from - T0, f.to - T0]);
const check = (events: readonly TraceEvent[]) => checkEvents(events, { redlockNodes: NODES });

/** A takes n1-n3 with a 1 s lease (validity 988 ms); something ends its key on n3; B takes n3-n5 at 400 ms. */
const twoMajorities = (onN3: readonly TraceEvent[]): TraceEvent[] => [
  take(0, 'n1', A, 1000),
  take(1, 'n2', A, 1000),
  take(2, 'n3', A, 1000),
  ...onN3,
  take(400, 'n4', B, 1500),
  take(401, 'n5', B, 1500),
  take(402, 'n3', B, 1500),
];

describe('the quorum view of Redlock nodes', () => {
  it('finds two owners holding a majority at once: from the second majority to the end of the first validity', () => {
    const findings = check(twoMajorities([ev(200, 'blind', 'n3', undefined), ev(250, 'expired', 'n3', A, { leaseMs: 1000 }), ev(251, 'unblind', 'n3', undefined)]));
    // Validity: 1000 - 1 % - 2 ms of drift, from A's first vote.
    expect(unsafe(findings)).toEqual([['overlap', `${A},${B}`, 402, 988]]);
    expect(findings[0]!.message).toMatch(/n3 counted for both: it restarted without its data and forgot the key at /);
  });

  it('without the nodes, one key seen on five servers is judged as one lock: no overlap (the old view)', () => {
    expect(unsafe(checkEvents(twoMajorities([])))).toEqual([]);
  });

  it('moves a stepped node back onto the common scale: a clock 5 s ahead still overlaps, and the step explains it', () => {
    const events = twoMajorities([ev(5200, 'clock-step', 'n3', undefined, { stepMs: 5000 })]).map((e) => (e.node === 'n3' && e.owner === B ? { ...e, t: e.t + 5000 } : e));
    const findings = check(events);
    expect(unsafe(findings)).toEqual([['overlap', `${A},${B}`, 402, 988]]);
    expect(findings[0]!.message).toMatch(/n3 counted for both: its clock stepped forward and expired the key early at /);
  });

  it('reads majorities whose events arrive interleaved: the earlier majority read second still overlaps', () => {
    const events = twoMajorities([]);
    const bFirst = [...events.slice(3), ...events.slice(0, 3)];
    expect(unsafe(check(bFirst))).toEqual([['overlap', `${A},${B}`, 402, 988]]);
  });

  it('finds nothing when the first holder released before the second got its majority', () => {
    const events = [take(0, 'n1', A, 1000), take(1, 'n2', A, 1000), take(2, 'n3', A, 1000), free(300, 'n1', A), free(300, 'n2', A), free(300, 'n3', A), take(400, 'n3', B, 1500), take(401, 'n4', B, 1500), take(402, 'n5', B, 1500)];
    expect(unsafe(check(events))).toEqual([]);
  });

  it('finds nothing when the second owner got only a minority, nor once the first validity ended', () => {
    const minority = [take(0, 'n1', A, 1000), take(1, 'n2', A, 1000), take(2, 'n3', A, 1000), take(400, 'n4', B, 1500), take(401, 'n5', B, 1500)];
    expect(unsafe(check(minority))).toEqual([]);
    const later = [take(0, 'n1', A, 1000), take(1, 'n2', A, 1000), take(2, 'n3', A, 1000), take(1100, 'n3', B, 1500), take(1101, 'n4', B, 1500), take(1102, 'n5', B, 1500)];
    expect(unsafe(check(later))).toEqual([]);
  });

  it('ends the first window at its release: the overlap runs to it', () => {
    const events = [...twoMajorities([]), free(600, 'n1', A)];
    // Issued at B's majority with A's validity; A's release later does not lengthen it.
    expect(unsafe(check(events))).toEqual([['overlap', `${A},${B}`, 402, 988]]);
    const releasedFirst = [take(0, 'n1', A, 1000), take(1, 'n2', A, 1000), take(2, 'n3', A, 1000), free(350, 'n1', A), take(400, 'n3', B, 1500), take(401, 'n4', B, 1500), take(402, 'n5', B, 1500)];
    expect(unsafe(check(releasedFirst))).toEqual([]);
  });
});

const refused = (ms: number, node: string, owner: string) => ev(ms, 'release-refused', node, owner);
const ofQuorum = (findings: readonly Finding[]) => unsafe(findings.filter((f) => f.quorum));
/** A takes all five with a 500 ms lease (validity 493 ms); its keys expire at 500; B takes all five at 900. */
const pausedThenB: TraceEvent[] = [
  ...NODES.map((n, i) => take(i, n, A, 500)),
  ...NODES.map((n) => ev(500, 'expired', n, A, { leaseMs: 500 })),
  ...NODES.map((n, i) => take(900 + i, n, B, 1000)),
];

describe('an owner that acts as holder on a majority after its validity ended', () => {
  it('is expired-while-held from its validity\'s end to its last act, and overlaps the majority held meanwhile', () => {
    const events = [...pausedThenB, refused(1500, 'n1', A), refused(1501, 'n2', A), refused(1502, 'n3', A)];
    // Validity 500 - 1 % - 2 ms from A's first vote; B's majority from its third vote, at 902.
    expect(ofQuorum(check(events))).toEqual([
      ['expired-while-held', A, 493, 1502],
      ['overlap', `${A},${B}`, 902, 1502],
    ]);
  });

  it('lengthens both windows in place at a later act, as the one-node checker does', () => {
    const events = [...pausedThenB, refused(1500, 'n1', A), refused(1501, 'n2', A), refused(1502, 'n3', A), refused(1600, 'n4', A)];
    expect(ofQuorum(check(events))).toEqual([
      ['expired-while-held', A, 493, 1600],
      ['overlap', `${A},${B}`, 902, 1600],
    ]);
  });

  it('says nothing for refusals on a minority, nor for a release after the work within validity', () => {
    expect(ofQuorum(check([...pausedThenB, refused(1500, 'n1', A), refused(1501, 'n2', A)]))).toEqual([]);
    const healthy = [...NODES.map((n, i) => take(i, n, A, 500)), ...NODES.map((n) => free(300, n, A)), ...NODES.map((n, i) => take(400 + i, n, B, 1000)), ...NODES.map((n) => free(800, n, B))];
    expect(unsafe(check(healthy))).toEqual([]);
  });
});

describe("a node's clock steps, from MONITOR's timestamps and the trace's fences", () => {
  it('calls a line well below the last fence\'s bound a step forward; lines that arrive late are not', () => {
    const steps = new ClockStepWatch();
    // No fence yet: nothing to compare with, even for a line far ahead.
    expect(steps.see(1000, 1000 + 5000)).toBeUndefined();
    steps.fence(2000, 1995); // sent at local 2000, run by the server at its 1995: local is at least 5 ms ahead
    // A backlog: lines 3 s late (the gap grows), and a first line of a busy start, are no step.
    expect(steps.see(5000, 2000)).toBeUndefined();
    expect(steps.see(5100, 5095 + CLOCK_STEP_MS / 2)).toBeUndefined();
    expect(steps.see(5200, 5195 + 5000)).toBe(5000);
    // Told once: the next lines on the new clock are no second step.
    expect(steps.see(5300, 5295 + 5000)).toBeUndefined();
  });

  it('takes its bound from the newest fence: after the clock went back, the next jump is seen', () => {
    const steps = new ClockStepWatch();
    steps.fence(1000, 1000 + 5000); // the node starts 5 s ahead (a jump left from before)
    steps.fence(2000, 2000); // then its clock is put back
    expect(steps.see(3000, 2995 + 5000)).toBe(4995);
  });
});
