// A server clock that steps forward (an NTP step, a VM resumed, an operator's `date -s`) makes
// every TTL on it run out at once, and MONITOR's timestamps jump with it: read naively, a key
// that vanished 100 ms after it was set looks as if it lived its whole lease. The live feed
// compares the server's times with its own clock to see a step (ClockStepWatch), records it as a
// `clock-step` node event, and an incident read from the recording undoes it (realTime), so the
// early expiry shows as what it was.

import type { TraceEvent } from './events.js';

/** A forward step smaller than this is lag noise or too small to matter next to a lease. */
export const CLOCK_STEP_MS = 500;

/**
 * Watches one server's times against the trace's own clock. The gap (local minus server time)
 * only grows with delivery lag; its smallest value is the two clocks' offset. A gap that falls
 * below that by more than CLOCK_STEP_MS means the server's clock moved forward by the difference.
 */
export class ClockStepWatch {
  private minGap = Number.POSITIVE_INFINITY;

  /** A line stamped `serverT` arrived at local time `localNow`: the forward step it shows (ms), if any. */
  see(localNow: number, serverT: number): number | undefined {
    const gap = localNow - serverT;
    const step = this.minGap - gap;
    this.minGap = Math.min(this.minGap, gap);
    // The first line has nothing to compare with: it only sets the offset.
    return Number.isFinite(step) && step > CLOCK_STEP_MS ? Math.round(step) : undefined;
  }
}

/** The `clock-step` event for a step seen at the line stamped `t` (the first after the step). */
export function clockStepEvent(t: number, stepMs: number): TraceEvent {
  return { kind: 'clock-step', t, lock: '*', stepMs, detail: `the server's clock stepped ${stepMs} ms forward` };
}

/**
 * Events in real time: each forward step recorded is taken out of the times after it, and a time
 * inside the skipped span (an expiry computed from a lease the step cut short) moves to the step.
 */
export function realTime(events: readonly TraceEvent[], all: readonly TraceEvent[]): readonly TraceEvent[] {
  const steps = all.filter((e) => e.kind === 'clock-step' && e.stepMs !== undefined).sort((a, b) => b.t - a.t);
  if (steps.length === 0) return events;
  return events.map((e) => {
    let t = e.t;
    for (const s of steps) {
      const before = s.t - s.stepMs!;
      if (t >= s.t) t -= s.stepMs!;
      else if (t > before) t = before;
    }
    return t === e.t ? e : { ...e, t };
  });
}
