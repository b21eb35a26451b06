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
  it('sees a forward step of the server clock against its fences, never a backlog of late lines', () => {
    const watch = new ClockStepWatch();
    // Before any fence nothing is proven; a fence sent at local +0 came back stamped server -3.
    const early = watch.see(T0 + 6000, T0);
    watch.fence(T0, T0 - 3);
    // A backlog: lines stamped 0.1 s to 2 s arrive together at local 2.3 s; then one prompt line.
    const backlog = [100, 1000, 2000, 2290].map((t) => watch.see(T0 + 2300, T0 + t));
    // The server 5 s ahead: a line stamped 7.3 s at local 2.31 s; the same step's next line proves nothing new.
    const stepped = [watch.see(T0 + 2310, T0 + 7300), watch.see(T0 + 2320, T0 + 7310)];
    expect([early, ...backlog, ...stepped]).toEqual([undefined, undefined, undefined, undefined, undefined, 4993, undefined]);
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
