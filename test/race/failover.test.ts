import { describe, expect, it } from 'vitest';
import { ops, plan, race } from './helpers.js';

describe('race --chaos failover', () => {
  it('starts a sentinel sandbox, promotes a replica mid-race, and the clients follow the new primary', async () => {
    const r = await race(plan('', { kind: 'reentrant', clients: 4, durationMs: 6000, leaseMs: 500, holdMs: 10, chaos: 'failover', chaosEveryMs: 2000, target: { type: 'fresh' } }));
    expect(r.target).toMatch(/^sandbox race-\d+-\d+ \(sentinel, started for this race\)$/);
    const events = r.keys[0]!.history.events;
    const done = events.filter((e) => e.kind === 'fault' && e.verb === 'failover' && e.phase === 'ok');
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done[0]).toMatchObject({ node: 'sandbox', detail: expect.stringMatching(/^failover by \w+: n1 -> n\d/) });
    // No fault is started that could not finish before the race ends.
    expect(events.filter((e) => e.kind === 'fault' && e.phase === 'invoke').every((e) => e.t < 6000 - 2900)).toBe(true);
    const granted = ops(r, 'acquire', 'ok').map((e) => e.t);
    expect(granted.some((t) => t < 2000)).toBe(true);
    expect(granted.some((t) => t > done[0]!.t + 100)).toBe(true);
    // Fired at --chaos-every (2 s), give or take a busy machine's timer lateness.
    expect(r.stats.faults[0]).toMatch(/^2\.[0-4] s failover sandbox: failover by/);
  }, 60_000);
});
