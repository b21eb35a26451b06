import { describe, expect, it } from 'vitest';
import { checkEvents } from '../../../src/core/trace/checker.js';
import { ClockStepWatch, clockStepEvent, realTime } from '../../../src/core/trace/clock-steps.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { inferIncident } from '../../../src/core/trace/incident.js';

// A server clock stepping forward: seen against the trace's own clock, and undone when an
// incident is read, so an early expiry is a clock step and not a lease that ran out.

const T0 = Date.UTC(2026, 10, 28, 14, 3, 7, 0);
const A = { owner: 'token-a', client: { addr: '127.0.0.1:5001', name: 'worker-a' } };
const B = { owner: 'token-b', client: { addr: '127.0.0.1:5002', name: 'worker-b' } };
const tok = (kind: TraceEvent['kind'], t: number, who: object, extra: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t: T0 + t, lock: 'orders', library: 'token', ...who, ...extra }) as TraceEvent;

describe('ClockStepWatch', () => {
  it('sees a forward step of the server clock, not the lag of a busy stream', () => {
    const watch = new ClockStepWatch();
    // Local and server clocks 3 ms apart; then lines arriving up to 2 s late; then the server 5 s ahead.
    const seen = [
      [T0 + 3, T0],
      [T0 + 2103, T0 + 100],
      [T0 + 2203, T0 + 2200],
      [T0 + 2303, T0 + 7300],
      [T0 + 2403, T0 + 7400],
    ].map(([local, server]) => watch.see(local!, server!));
    expect(seen).toEqual([undefined, undefined, undefined, 5000, undefined]);
  });
});

describe('an incident across a recorded clock step', () => {
  // A's 2 s lease; the server's clock steps 5 s forward at 0.1 s: the trace computes A's expiry
  // at 2 s, but B's acquisition (at 5.2 s on the stepped clock) came 0.2 s after A's.
  const stepped = [
    tok('acquired', 0, A, { leaseMs: 2000 }),
    tok('expired', 2000, A, { leaseMs: 2000 }),
    clockStepEvent(T0 + 5200, 5000),
    tok('acquired', 5200, B, { leaseMs: 2000 }),
    tok('release-refused', 5500, A),
  ];

  it('realTime takes the step out: times after it move back, a time inside the skipped span moves to the step', () => {
    expect(realTime(stepped, stepped).map((e) => e.t - T0)).toEqual([0, 200, 200, 200, 500]);
  });

  it('infers a clock step where the times as stamped read as a lease that ran out', () => {
    const infer = (events: TraceEvent[]) => {
      const r = inferIncident(events, checkEvents(events));
      return r.ok ? [r.incident.fault, r.incident.aheadMs] : r.problem;
    };
    expect(infer(stepped)).toEqual(['clock-step', 1800]);
    expect(infer(stepped.filter((e) => e.kind !== 'clock-step'))).toEqual(['expiry-before-release', undefined]);
  });
});
