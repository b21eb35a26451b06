import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { decodeLines } from '../../../src/core/trace/decoder.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { incidentScenario } from '../../../src/core/trace/incident-scenario.js';
import { inferIncident, type Incident } from '../../../src/core/trace/incident.js';
import { parseScenario } from '../../../src/scenario/load.js';
import { isClientStep } from '../../../src/scenario/model.js';
import { scenarioYaml } from '../../../src/scenario/write-scenario.js';
import { A, at, lua, OWNER_A, OWNER_B, T0 } from './monitor-stream.js';

// A fenced lock (Redisson's RFencedLock counts a token with every grant): the trace marks its
// grants, and a lease lost on it is replayed as writes, with the storage checking tokens among
// the fixes.

const FENCED_ACQUIRE = "local token = redis.call('incr', KEYS[2]); redis.call('hincrby', KEYS[1], ARGV[2], 1); return token;";

describe('trace: a fenced lock', () => {
  it("marks a grant whose script counted the lock's fencing token, and only that one", () => {
    const grant = (ms: number, key: string, owner: string, fenced: boolean) => [
      at(ms, A, 'EVAL', FENCED_ACQUIRE, '2', key, `redisson_lock_token:{${key}}`, '30000', owner),
      lua(ms, 'exists', key),
      lua(ms, 'hincrby', key, owner, '1'),
      lua(ms, 'pexpire', key, '30000'),
      ...(fenced ? [lua(ms, 'incr', `redisson_lock_token:{${key}}`)] : []),
    ];
    const events = decodeLines([...grant(1, 'ledger', OWNER_A, true), ...grant(2, 'orders', OWNER_B, false)]).filter((e) => e.kind === 'acquired');
    expect(events.map((e) => [e.lock, e.fenced])).toEqual([['ledger', true], ['orders', undefined]]);
  });

  it('a lease lost on it is replayed as writes: unsafe shows a stale write, fencing and a longer lease are safe', () => {
    const who = (owner: string, name: string) => ({ owner, client: { addr: `127.0.0.1:50${name.charCodeAt(0)}`, name } });
    const ev = (kind: TraceEvent['kind'], t: number, x: object, extra: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t: T0 + t, lock: 'ledger', library: 'redisson', ...x, ...extra }) as TraceEvent;
    const [a, b] = [who(OWNER_A, 'A'), who(OWNER_B, 'B')];
    const events = [
      ev('acquired', 0, a, { leaseMs: 500, count: 1, fenced: true }),
      ev('expired', 500, a, { leaseMs: 500 }),
      ev('acquired', 520, b, { leaseMs: 2000, count: 1, fenced: true }),
      ev('release-refused', 1100, a, { holders: [OWNER_B] }),
      ev('released', 1300, b, { count: 0 }),
    ];
    const result = inferIncident(events, checkEvents(events));
    if (!result.ok) throw new Error(result.problem);
    const incident: Incident = result.incident;
    expect([incident.family, incident.fault]).toEqual(['fenced', 'expiry-before-release']);
    const s = parseScenario(scenarioYaml(incidentScenario(incident, 'incident.ndjson')), 'replay.yaml');
    expect(s.lock.kind).toBe('fenced');
    expect(s.variants.map((v) => [v.name, v.expect, v.resource?.fencing])).toEqual([
      ['unsafe', ['stale-holder', 'stale-write'], undefined],
      ['fencing', [], 'strict'],
      ['longer-lease', [], undefined],
      ['watchdog', [], undefined],
    ]);
    // A's write comes after B's, and its release after its write: the refusal the trace sees.
    const order = s.steps.filter(isClientStep).filter((x) => x.do === 'write' || x.do === 'release').map((x) => `${x.client} ${x.do}`);
    expect(order).toEqual(['B write', 'A write', 'A release', 'B release']);
  });
});
