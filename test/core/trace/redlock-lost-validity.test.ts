import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { inferRedlockIncident } from '../../../src/core/trace/redlock-scenario.js';

// trace --scenario on a recording of Redlock's nodes where A's majority lapsed and A then released
// (refused on every node: B had taken them): a replay of A frozen during its acquisition, with the
// validity check and a longer lease as fixes. Times are ms after T0.

const T0 = 1_764_064_800_000;
const NODES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const [A, B] = ['a1b2c3d4e5f6a7b8c9d0', 'f0e9d8c7b6a5f4e3d2c1'];
const ev = (ms: number, kind: TraceEvent['kind'], node: string, owner: string, extra: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t: T0 + ms, lock: 'payments', node, library: 'token', owner, ...extra });
const recorded: TraceEvent[] = [
  ...NODES.map((n, i) => ev(i, 'acquired', n, A, { leaseMs: 500, count: 1 })),
  ...NODES.map((n) => ev(500, 'expired', n, A, { leaseMs: 500 })),
  ...NODES.map((n, i) => ev(900 + i, 'acquired', n, B, { leaseMs: 1000, count: 1 })),
  ...NODES.map((n, i) => ev(1500 + i, 'release-refused', n, A)),
];

describe('a Redlock owner past its validity, as a scenario', () => {
  it('starts from the majority\'s finding, not the first node\'s, and replays a freeze during the acquisition', () => {
    const findings = checkEvents(recorded, { redlockNodes: NODES });
    // Each node's own expired-while-held comes first; the quorum's follows them.
    expect(findings[0]).toMatchObject({ kind: 'expired-while-held' });
    expect(findings[0]!.quorum).toBeUndefined();
    const result = inferRedlockIncident(recorded, findings, NODES, 'rec.ndjson');
    if (!result.ok) throw new Error(result.problem);
    const { incident } = result;
    expect([incident.finding.kind, incident.finding.quorum, incident.fault, incident.node]).toEqual(['expired-while-held', true, 'pause', undefined]);
    const spec = incident.spec as { steps: Record<string, unknown>[]; variants: Record<string, { expect: unknown }> };
    expect(Object.entries(spec.variants).map(([name, v]) => [name, v.expect])).toEqual([
      ['unsafe', ['mutual-exclusion', 'stale-holder']],
      ['validity-check', 'safe'],
      ['longer-lease', 'safe'],
    ]);
    // A sends its SETs, freezes before the replies, and wakes after B took the lock: its release comes last of A's steps.
    const ofA = spec.steps.filter((s) => s.client === 'A').map((s) => [s.do, s.only ?? 'all']);
    expect(ofA).toEqual([
      ['acquire', 'unsafe'],
      ['acquire', 'validity-check'],
      ['acquire', 'longer-lease'],
      ['pause', 'all'],
      ['enter', 'all'],
      ['leave', 'all'],
      ['release', ['unsafe', 'longer-lease']],
    ]);
    const at = (s: Record<string, unknown> | undefined) => Number.parseInt(String(s?.at), 10);
    const pause = spec.steps.find((s) => s.do === 'pause')!;
    const bAcquire = spec.steps.find((s) => s.client === 'B' && s.do === 'acquire');
    expect(at(pause) + Number.parseInt(String(pause.for), 10)).toBeGreaterThan(at(bAcquire));
  });

  it('still refuses one node\'s finding picked by number', () => {
    const findings = checkEvents(recorded, { redlockNodes: NODES });
    const result = inferRedlockIncident(recorded, findings, NODES, 'rec.ndjson', { finding: 1 });
    expect(result.ok ? 'ok' : result.problem).toMatch(/^expired-while-held on payments is one node's finding: a Redlock replay starts from a majority's finding/);
  });
});
