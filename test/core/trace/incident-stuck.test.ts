import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { incidentScenario } from '../../../src/core/trace/incident-scenario.js';
import { inferIncident, type Incident } from '../../../src/core/trace/incident.js';
import { parseScenario } from '../../../src/scenario/load.js';
import { isClientStep } from '../../../src/scenario/model.js';
import { scenarioYaml } from '../../../src/scenario/write-scenario.js';
import { A, B, C, every, ev, FAIR_QUEUE, sorted, T0, tok } from './stuck-histories.js';

// A deadlock finding turned into a scenario: the incident behind each `why`, and the scenario
// written from it, read back by the loader as `scenario run` reads it: an unsafe variant that
// expects a deadlock, and the fix beside it expected safe.

function infer(events: TraceEvent[]): Incident {
  const result = inferIncident(events, checkEvents(events));
  if (!result.ok) throw new Error(result.problem);
  return result.incident;
}
const written = (incident: Incident) => parseScenario(scenarioYaml(incidentScenario(incident, 'incident.ndjson')), 'replay.yaml');
const variants = (incident: Incident) => written(incident).variants.map((v) => [v.name, v.expect]);

describe('trace --scenario on a deadlock', () => {
  it('no-ttl: a crash of a holder without TTL, replayed with SETNX and a crash, fixed by SET NX PX', () => {
    const incident = infer([tok('acquired', 0, A), ...every(200, 1400, 200, (t) => tok('refused', t, B, { holders: [A.owner] }))]);
    expect([incident.finding.kind, incident.finding.why, incident.fault, incident.family]).toEqual(['deadlock', 'no-ttl', 'crash', 'token']);
    expect(incident.actors.map((a) => [a.name, a.seenAs])).toEqual([['A', 'worker-a'], ['B', 'worker-b']]);
    const s = written(incident);
    expect(variants(incident)).toEqual([['unsafe', ['deadlock']], ['atomic-set', []]]);
    expect(s.steps.filter((x) => isClientStep(x) && x.client === 'A').map((x) => isClientStep(x) && x.do)).toEqual(['acquire', 'acquire', 'crash']);
    expect(s.narration).toContain('liveness finding 1 (deadlock)');
  });

  it('count-left: a hold taken twice and released once, fixed by releasing every hold', () => {
    const events = sorted([ev('acquired', 0, A, { count: 1, leaseMs: 900 }), ev('acquired', 150, A, { count: 2, leaseMs: 900 }), ev('released', 300, A, { count: 1 }), ...every(400, 2200, 300, (t) => ev('renewed', t, A, { leaseMs: 900 })), ...every(450, 2250, 200, (t) => ev('refused', t, B, { holders: [A.owner] }))]);
    // An earlier, balanced hold of A's is no part of the window: it starts at A's last new hold.
    const incident = infer([ev('acquired', -900, A, { count: 1, leaseMs: 900 }), ev('released', -800, A, { count: 0 }), ...events]);
    expect([incident.finding.why, incident.fault, incident.family, incident.stuck?.holds, incident.stuck?.countLeft]).toEqual(['count-left', 'count-left', 'reentrant', 2, 1]);
    expect(incident.origin - T0).toBe(0);
    const s = written(incident);
    expect(variants(incident)).toEqual([['unsafe', ['deadlock']], ['balanced-release', []]]);
    const releases = s.steps.filter((x) => isClientStep(x) && x.client === 'A' && x.do === 'release');
    expect(releases.map((x) => x.only)).toEqual([undefined, ['balanced-release']]);
    expect(s.starvationMs).toBe(1200);
  });

  it('dead-queue-head: a fair lock, its dead head W1 and the waiter W2 behind, with the allowance seen in their deadlines', () => {
    const events = [
      ...FAIR_QUEUE,
      ...every(600, 3400, 100, (t) => ev('refused', t, C, { holders: [] })),
      ev('acquired', 3610, C, { count: 1, leaseMs: 1000 }),
    ];
    const incident = infer(events);
    expect([incident.finding.why, incident.family, incident.stuck?.allowanceMs]).toEqual(['dead-queue-head', 'fair', 3000]);
    expect(incident.actors.map((a) => [a.name, a.seenAs])).toEqual([['A', 'worker-a'], ['W1', 'worker-b'], ['W2', 'worker-c']]);
    const s = written(incident);
    expect(s.lock.kind).toBe('fair');
    expect(variants(incident)).toEqual([['unsafe', ['deadlock']], ['short-allowance', []]]);
  });

  it('orphan-hold: a dead reader, the live reader whose renewals kept it, the writer, fixed by renewing only its own keys', () => {
    const events = sorted([
      ev('reader-join', 0, A, { count: 1, shared: true, leaseMs: 1500 }),
      ev('reader-join', 100, B, { count: 1, shared: true, leaseMs: 1500 }),
      ...every(600, 1600, 500, (t) => ev('renewed', t, B, { leaseMs: 1500 })),
      ev('refused', 1000, C, { holders: [A.owner, B.owner] }),
      ev('reader-leave', 2000, B, { count: 0, shared: true }),
      ev('refused', 2100, C, { holders: [A.owner] }),
      ev('expired', 3100, A, { holders: [A.owner], shared: true }),
    ]);
    const incident = infer(events);
    expect([incident.finding.why, incident.family]).toEqual(['orphan-hold', 'read']);
    expect(incident.actors.map((a) => [a.name, a.seenAs])).toEqual([['R1', 'worker-a'], ['R2', 'worker-b'], ['W', 'worker-c']]);
    const s = written(incident);
    expect(s.clients.map((c) => [c.name, c.kind])).toEqual([['R1', 'read'], ['R2', 'read'], ['W', 'write']]);
    expect(variants(incident)).toEqual([['unsafe', ['deadlock']], ['own-renewal', []]]);
  });

  it('data-key: a lock refused on application data, seeded with a stand-in, fixed by a key of its own', () => {
    const events = sorted([...every(0, 1400, 200, (t) => tok('refused', t, A, { holders: [], data: true, lock: 'cart:42' })), ...every(100, 1500, 200, (t) => tok('refused', t, B, { holders: [], data: true, lock: 'cart:42' }))]);
    const incident = infer(events);
    expect([incident.finding.why, incident.fault, incident.family]).toEqual(['data-key', 'key-collision', 'token']);
    const s = written(incident);
    expect(s.seed.map((x) => x.key)).toEqual(['cart:42']);
    expect(s.variants.map((v) => [v.name, v.lock?.key ?? s.lock.key])).toEqual([['unsafe', 'cart:42'], ['own-key', 'lock:cart:42']]);
  });

  it('a deadlock on a Redisson hash without TTL is not replayed, in one line', () => {
    const events = [ev('acquired', 0, A, { count: 1 }), ...every(200, 1400, 200, (t) => ev('refused', t, B, { holders: [A.owner] }))];
    expect(inferIncident(events, checkEvents(events))).toEqual({ ok: false, problem: "deadlock on jobs: a lock without TTL replays as a token lock's SETNX, and this one is a Redisson hash" });
  });
});
