import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { KEPT, LOSS_HORIZON_MS, OpenLosses } from '../../../src/core/trace/open-losses.js';

const T0 = 1_764_064_800_000;

/** The work of `n` events that each open a loss no refusal closes, as the checker does it. */
function upkeepOf(n: number): number {
  const losses = new OpenLosses();
  for (let i = 0; i < n; i++) {
    const t = T0 + i * 50;
    losses.open(`tok${i}`, { at: t, cause: 'expired', client: undefined });
    losses.acquired({ owner: `tok${i + 1}`, t, client: undefined, end: undefined });
    losses.prune(t);
  }
  return losses.upkeepSteps;
}

/** `x` taken by a new token every 2 ms with a 1 ms lease: acquired, then expired, never refused. */
function expiring(n: number): TraceEvent[] {
  return Array.from({ length: n }, (_, i): TraceEvent[] => [
    { kind: 'acquired', t: T0 + i * 2, lock: 'x', owner: `tok${i}`, library: 'token', leaseMs: 1, count: 1 },
    { kind: 'expired', t: T0 + i * 2 + 1, lock: 'x', owner: `tok${i}`, library: 'token', leaseMs: 1 },
  ]).flat();
}

describe('open losses', () => {
  it('costs a bounded number of steps per event however many losses stay open', () => {
    // 40,000 events at 50 ms span 2,000 s: losses both pile up and pass the horizon.
    for (const n of [10_000, 40_000]) expect(upkeepOf(n), `${n} events`).toBeLessThanOrEqual(3 * n);
  });

  it('forgets a loss past the horizon only when many are open; a refusal closes one', () => {
    const few = new OpenLosses();
    few.open('a', { at: T0, cause: 'expired', client: undefined });
    few.prune(T0 + 2 * LOSS_HORIZON_MS);
    expect(few.get('a')?.at).toBe(T0);
    const many = new OpenLosses();
    for (let i = 0; i <= KEPT; i++) many.open(`o${i}`, { at: T0 + i, cause: 'expired', client: undefined });
    many.close('o5');
    many.prune(T0 + LOSS_HORIZON_MS + 10);
    expect([many.get('o0'), many.get('o5'), many.get('o9')]).toEqual([undefined, undefined, undefined]);
    expect(many.get('o10')?.at).toBe(T0 + 10);
    expect(many.size).toBe(KEPT + 1 - 10);
  });

  it('keeps the newest acquisitions while a loss is open and none once every loss is closed', () => {
    const losses = new OpenLosses();
    losses.acquired({ owner: 'before', t: T0, client: undefined, end: undefined });
    losses.open('a', { at: T0 + 1, cause: 'expired', client: undefined });
    for (let i = 0; i < KEPT + 5; i++) losses.acquired({ owner: `b${i}`, t: T0 + 2 + i, client: undefined, end: undefined });
    const kept = [...losses.acquiredBetween(T0, T0 + 10 * KEPT)];
    expect(kept.length).toBe(KEPT);
    expect(kept[0]?.owner).toBe('b5');
    losses.close('a');
    losses.prune(T0 + 2 * KEPT);
    expect([...losses.acquiredBetween(T0, T0 + 10 * KEPT)]).toEqual([]);
  });

  it('the checker reads 40,000 expiring acquisitions quickly, and a late refusal still finds its overlap', () => {
    const events = expiring(40_000);
    const last = events.at(-1)!.t;
    events.push({ kind: 'release-refused', t: last + 1, lock: 'x', owner: 'tok39998', library: 'token' });
    const start = process.cpuUsage();
    const findings = checkEvents(events);
    const used = process.cpuUsage(start);
    // The quadratic walk took minutes here; linear work takes well under a second, even on a busy machine.
    expect((used.user + used.system) / 1e6).toBeLessThan(10);
    expect(findings.map((f) => `${f.kind} ${f.owners.join(',')}`)).toEqual([
      'expired-while-held tok39998',
      'overlap tok39998,tok39999',
    ]);
  });
});
