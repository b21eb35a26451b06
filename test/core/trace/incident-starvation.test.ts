import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { incidentScenario } from '../../../src/core/trace/incident-scenario.js';
import { inferIncident, type Incident } from '../../../src/core/trace/incident.js';
import { parseScenario } from '../../../src/scenario/load.js';
import { isClientStep } from '../../../src/scenario/model.js';
import { scenarioYaml } from '../../../src/scenario/write-scenario.js';
import { A, B, HUNG, OVERTAKEN, T0, W } from './starvation-fixtures.js';

// A starvation finding turned into a scenario: its shape (readers overtaking a writer, a holder
// that only renews), the replay's cast, and a starvation bound between the fix's wait and the
// recorded one.

function infer(events: TraceEvent[]): Incident {
  const result = inferIncident(events, checkEvents(events));
  if (!result.ok) throw new Error(result.problem);
  return result.incident;
}

const written = (incident: Incident) => parseScenario(scenarioYaml(incidentScenario(incident, 'incident.ndjson')), 'replay.yaml');

describe('inferIncident: starvation', () => {
  it('a writer overtaken by readers: a reader stream, replayed on reader clients beside writer preference', () => {
    const incident = infer(OVERTAKEN);
    expect([incident.finding.kind, incident.fault, incident.family, incident.origin, incident.lossAt]).toEqual(['starvation', 'reader-stream', 'read', T0, T0 + 100]);
    expect(incident.actors.map((a) => [a.name, a.owner])[0]).toEqual(['W', W.owner]);
    const s = written(incident);
    expect(s.variants.map((v) => [v.name, v.expect])).toEqual([['unsafe', ['starvation']], ['writer-preference', []]]);
    expect(s.clients.map((c) => [c.name, c.kind])).toEqual([['R1', 'read'], ['R2', 'read'], ['W', 'write']]);
    // W's wait as recorded is 1.7 s, under writer preference 0.5 s (until R1's read ends): the bound is between.
    expect(s.starvationMs).toBe(1100);
    const fixedReads = s.steps.filter((x) => isClientStep(x) && x.do === 'acquire' && x.only?.includes('writer-preference'));
    expect(fixedReads.every((x) => isClientStep(x) && x.do === 'acquire' && x.writerPreference === true)).toBe(true);
  });

  it('a holder that only renewed while B waited: a hung holder, replayed beside a bounded watchdog', () => {
    const incident = infer(HUNG);
    expect([incident.fault, incident.family, incident.origin, incident.lossAt, incident.actAt]).toEqual(['hung-holder', 'reentrant', T0, T0 + 150, T0 + 1450]);
    expect(incident.actors.map((a) => [a.name, a.owner, a.leaseMs, a.renews])).toEqual([['A', A!.owner, 300, true], ['B', B!.owner, undefined, false]]);
    const s = written(incident);
    expect(s.variants.map((v) => [v.name, v.expect])).toEqual([['unsafe', ['starvation']], ['bounded-watchdog', []]]);
    const acquires = s.steps.filter((x) => isClientStep(x) && x.client === 'A' && x.do === 'acquire');
    expect(acquires.map((x) => isClientStep(x) && x.do === 'acquire' && [x.only, x.watchdogLeaseMs, x.maxRenewals])).toEqual([[['unsafe'], 300, undefined], [['bounded-watchdog'], 300, 2]]);
    expect(s.clients.find((c) => c.name === 'A')?.stopOnLost).toBe(true);
    expect(s.toleranceMs).toBe(100);
    // B waits 1.3 s as recorded (kept to at least 5 leases: 1.5 s), about 0.35 s under the fix.
    expect(s.starvationMs).toBeGreaterThan(700);
    expect(s.starvationMs).toBeLessThan(1200);
  });
});
