import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { incidentScenario } from '../../../src/core/trace/incident-scenario.js';
import { inferIncident, parseMoment, type Incident, type IncidentPick } from '../../../src/core/trace/incident.js';
import { parseScenario } from '../../../src/scenario/load.js';
import { isClientStep, isFaultStep } from '../../../src/scenario/model.js';
import { scenarioYaml } from '../../../src/scenario/write-scenario.js';

// Fixture histories, one per fault the inference tells apart, through the real checker: what the
// incident is, and that the scenario written from it loads and replays that fault.

const T0 = Date.UTC(2026, 10, 28, 14, 3, 7, 0);
const A = { owner: 'aaaaaaaa-0000-4000-8000-000000000001:1', client: { addr: '127.0.0.1:5001', name: 'worker-a' } };
const B = { owner: 'bbbbbbbb-0000-4000-8000-000000000002:1', client: { addr: '127.0.0.1:5002', name: 'worker-b' } };
const C = { owner: 'cccccccc-0000-4000-8000-000000000003:1', client: { addr: '127.0.0.1:5003', name: 'worker-c' } };
const tokens = { A: { ...A, owner: 'token-a' }, B: { ...B, owner: 'token-b' }, C: { ...C, owner: 'token-c' } };

type Who = { owner: string; client: { addr: string; name: string } };
const ev = (kind: TraceEvent['kind'], t: number, who: Partial<Who>, extra: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t: T0 + t, lock: 'orders', library: 'redisson', ...who, ...extra }) as TraceEvent;
const tok = (kind: TraceEvent['kind'], t: number, who: Partial<Who>, extra: Partial<TraceEvent> = {}) => ev(kind, t, who, { library: 'token', ...extra });

function infer(events: TraceEvent[], pick: IncidentPick = {}): Incident {
  const result = inferIncident(events, checkEvents(events), pick);
  if (!result.ok) throw new Error(result.problem);
  return result.incident;
}

/** The scenario written for an incident, read back by the loader as `scenario run` reads it. */
const written = (incident: Incident) => parseScenario(scenarioYaml(incidentScenario(incident, 'incident.ndjson')), 'replay.yaml');

const PAUSE: TraceEvent[] = [
  ev('acquired', 0, A, { leaseMs: 300, count: 1 }),
  ev('renewed', 100, A, { leaseMs: 300 }),
  ev('renewed', 200, A, { leaseMs: 300 }),
  ev('expired', 500, A, { holders: [A.owner], leaseMs: 300 }),
  ev('acquired', 600, B, { leaseMs: 1000, count: 1 }),
  ev('renew-refused', 900, A),
  ev('released', 1000, B, { count: 0 }),
];

describe('inferIncident: the fault behind a finding', () => {
  it('a holder that renewed, then went silent past its lease: a pause, replayed as one, with a longer lease beside it', () => {
    const incident = infer(PAUSE);
    expect([incident.fault, incident.act, incident.family, incident.finding.kind]).toEqual(['pause', 'renew', 'reentrant', 'expired-while-held']);
    expect(incident.actors.map((a) => [a.name, a.owner, a.seenAs, a.leaseMs, a.renewEveryMs, a.renews])).toEqual([
      ['A', A.owner, 'worker-a', 300, 100, true],
      ['B', B.owner, 'worker-b', 1000, undefined, false],
    ]);
    expect(incident.silentFrom).toBe(T0 + 200);
    const s = written(incident);
    expect(s.narration).toContain('As recorded: A (worker-a): a 300ms lease renewed every 100ms; B (worker-b): a 1000ms lease, never renewed.');
    expect(s.variants.map((v) => [v.name, v.expect])).toEqual([['unsafe', ['mutual-exclusion']], ['longer-lease', []]]);
    const pause = s.steps.find((x) => isClientStep(x) && x.do === 'pause');
    expect(pause && isClientStep(pause) && pause.do === 'pause' && pause.client).toBe('A');
    const first = s.steps[0]!;
    expect(isClientStep(first) && first.do === 'acquire' && first.leaseMs === undefined && first.watchdogLeaseMs).toBe(300);
  });

  it('a fixed lease that ran out before its release: expiry before release, with the watchdog among the fixes', () => {
    const events = [tok('acquired', 0, tokens.A, { leaseMs: 300 }), tok('expired', 300, tokens.A, { leaseMs: 300 }), tok('acquired', 400, tokens.B, { leaseMs: 1000 }), tok('release-refused', 600, tokens.A)];
    const incident = infer(events);
    expect([incident.fault, incident.act, incident.family]).toEqual(['expiry-before-release', 'release', 'token']);
    expect(written(incident).variants.map((v) => v.name)).toEqual(['unsafe', 'longer-lease', 'watchdog']);
  });

  it("a former holder's plain DEL of the next holder's lock: its expiry before release, fixed by an owner-checked release", () => {
    const events = [
      tok('acquired', 0, tokens.A, { leaseMs: 300 }),
      tok('expired', 300, tokens.A, { leaseMs: 300 }),
      tok('acquired', 350, tokens.B, { leaseMs: 2000 }),
      tok('deleted', 500, { client: tokens.A.client }, { holders: ['token-b'], command: ['DEL', 'orders'] }),
      tok('acquired', 550, tokens.C, { leaseMs: 1000 }),
      tok('release-refused', 1000, tokens.B),
    ];
    const incident = infer(events);
    expect([incident.finding.kind, incident.fault, incident.act]).toEqual(['foreign-delete', 'expiry-before-release', 'delete']);
    expect(incident.actors.map((a) => [a.name, a.owner])).toEqual([['A', 'token-a'], ['B', 'token-b'], ['C', 'token-c']]);
    // B worked on until its own (refused) release: it stays inside while C enters.
    expect(incident.actors[1]!.endedAt).toBe(T0 + 1000);
    const s = written(incident);
    expect(s.variants.map((v) => v.name)).toEqual(['unsafe', 'owner-checked-release', 'longer-lease']);
    expect(s.steps.filter((x) => isClientStep(x) && x.do === 'release' && x.client === 'A').map((x) => isClientStep(x) && x.do === 'release' && x.mode)).toEqual(['naive-del', 'safe']);
  });

  it('a DEL from a client that never held the lock: a foreign delete by D', () => {
    const cleanup = { client: { addr: '127.0.0.1:5009', name: 'cleanup-script' } };
    const events = [ev('acquired', 0, A, { leaseMs: 1000, count: 1 }), ev('deleted', 200, cleanup, { holders: [A.owner], command: ['DEL', 'orders'] }), ev('acquired', 300, B, { leaseMs: 1000, count: 1 })];
    const incident = infer(events);
    expect([incident.fault, incident.act]).toEqual(['foreign-delete', 'delete']);
    expect(incident.actors.map((a) => [a.name, a.owner, a.seenAs])).toEqual([['A', A.owner, 'worker-a'], ['B', B.owner, 'worker-b'], ['D', undefined, 'cleanup-script']]);
    expect(written(incident).clients.map((c) => c.name)).toEqual(['A', 'B', 'D']);
  });

  it('a lock absent on the promoted primary: a failover, on a Sentinel sandbox, fixed by WAIT for a replica', () => {
    const events = [
      ev('acquired', 0, A, { leaseMs: 10_000, count: 1 }),
      { kind: 'failover', t: T0 + 400, lock: '*', detail: 'old primary 127.0.0.1:7001' } as TraceEvent,
      ev('lost-in-failover', 500, A, { detail: 'absent' }),
      ev('acquired', 600, B, { leaseMs: 10_000, count: 1 }),
      ev('release-refused', 3000, A),
    ];
    const incident = infer(events);
    expect([incident.finding.kind, incident.fault]).toEqual(['lost-in-failover', 'failover']);
    const s = written(incident);
    expect(s.sandbox.topology).toBe('sentinel');
    expect(s.steps.some((x) => isFaultStep(x) && x.fault === 'failover')).toBe(true);
    expect(s.variants.map((v) => v.name)).toEqual(['unsafe', 'wait-replicas']);
    // B waits up to 6 s for the promoted primary: waiting that long is the race, not starvation.
    expect(s.starvationMs).toBe(7000);
  });

  it('a key gone long before its lease could end, deleted by nobody: a clock step, replayed with a clock fault', () => {
    const events = [tok('acquired', 0, tokens.A, { leaseMs: 1000 }), tok('expired', 200, tokens.A, { detail: 'gone before its computed expiry' }), tok('acquired', 200, tokens.B, { leaseMs: 1000 }), tok('release-refused', 800, tokens.A)];
    const incident = infer(events);
    expect([incident.fault, incident.aheadMs]).toEqual(['clock-step', 800]);
    const s = written(incident);
    expect(s.sandbox.fakeClock).toBe(true);
    expect(s.steps.filter(isFaultStep).map((x) => [x.fault, x.value, x.only])).toEqual([['clock', '+2s', ['unsafe']], ['clock', '+10ms', ['slew-only']]]);
  });

  it('a late refresh that SET the lock again: replayed as a reset renewal, fixed by compare-and-extend', () => {
    const events = [tok('acquired', 0, tokens.A, { leaseMs: 300 }), tok('expired', 300, tokens.A, { leaseMs: 300 }), tok('acquired', 500, tokens.B, { leaseMs: 1000 }), tok('released', 570, tokens.B, { count: 0 }), tok('acquired', 700, tokens.A, { leaseMs: 300, overwrite: true })];
    const incident = infer(events);
    expect([incident.finding.kind, incident.act]).toEqual(['silent-reacquire', 'reset']);
    const s = written(incident);
    expect(s.variants.map((v) => [v.name, v.expect])).toEqual([['unsafe', ['lost-update']], ['compare-and-extend', []]]);
  });

  it('long leases replay scaled down, in the same order', () => {
    const slow = PAUSE.map((e) => ({ ...e, t: T0 + (e.t - T0) * 100, ...(e.leaseMs !== undefined ? { leaseMs: e.leaseMs * 100 } : {}) }));
    const s = written(infer(slow));
    expect(s.narration).toMatch(/30 times shorter than recorded/);
    const first = s.steps[0]!;
    expect(isClientStep(first) && first.do === 'acquire' && first.watchdogLeaseMs).toBe(1000);
  });
});

describe('inferIncident: what it refuses, in one line', () => {
  it('a recording with warnings only', () => {
    const events = [tok('acquired', 0, tokens.A, {})];
    expect(inferIncident(events, checkEvents(events))).toEqual({ ok: false, problem: 'no unsafe finding in the recording (only warnings: no-ttl): nothing to replay' });
  });

  it('a finding number past the last, and a moment far from every finding', () => {
    expect(inferIncident(PAUSE, checkEvents(PAUSE), { finding: 9 })).toEqual({ ok: false, problem: '--finding 9: the recording has 2 unsafe findings' });
    const far = inferIncident(PAUSE, checkEvents(PAUSE), { at: T0 + 60_000 });
    expect(far.ok === false && far.problem).toMatch(/^no unsafe finding within 1 s of 14:04:07\.000; the nearest, /);
  });

  it('the second finding by number, and by a moment inside its window', () => {
    expect(infer(PAUSE, { finding: 2 }).finding.kind).toBe('overlap');
    expect(infer(PAUSE, { at: T0 + 700 }).number).toBe(1);
  });

  it('an owner whose acquisition came before the recording', () => {
    const events = PAUSE.slice(1);
    const r = inferIncident(events, checkEvents(events));
    expect(r.ok).toBe(false);
  });
});

describe('parseMoment', () => {
  it('reads the time of day trace prints on the recording\'s day, and ISO times; nothing else', () => {
    expect(parseMoment('14:03:07.25', T0 + 5000)).toBe(T0 + 250);
    expect(parseMoment('2026-11-28T14:03:08Z', T0)).toBe(T0 + 1000);
    expect(parseMoment('25:00:00', T0)).toBeUndefined();
    expect(parseMoment('tomorrow', T0)).toBeUndefined();
  });
});
