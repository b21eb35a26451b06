// A server clock that steps forward (an NTP step, a VM resumed, an operator's `date -s`) makes
// every TTL on it run out at once, and MONITOR's timestamps jump with it: read naively, a key
// that vanished 100 ms after it was set looks as if it lived its whole lease. The live feed
// compares the server's times with its own clock and its fences to see a step (ClockStepWatch), records it as a
// `clock-step` node event, and an incident read from the recording undoes it (realTime), so the
// early expiry shows as what it was.

import type { TraceEvent } from './events.js';

/** A forward step smaller than this is lag noise or too small to matter next to a lease. */
export const CLOCK_STEP_MS = 500;

/**
 * Watches one server's times against the trace's own clock. The offset (local minus server time)
 * is bounded below by each fence: the server ran it after the trace sent it, so the offset is at
 * least its send time minus its server time. Any line's gap (its arrival minus its server time)
 * is at least the offset, however late the line came: a backlog drained never looks like a step.
 * A gap below the last fence's bound by more than CLOCK_STEP_MS means the server's clock moved
 * forward by at least the difference; the next fence bounds the new offset.
 */
export class ClockStepWatch {
  private lowest: number | undefined;

  /** A fence sent at local `sentAt` came back stamped `serverT`. */
  fence(sentAt: number, serverT: number): void {
    this.lowest = sentAt - serverT;
  }

  /** A line stamped `serverT` arrived by local time `localNow`: the forward step it proves (ms), if any. */
  see(localNow: number, serverT: number): number | undefined {
    if (this.lowest === undefined) return undefined;
    const step = this.lowest - (localNow - serverT);
    if (step <= CLOCK_STEP_MS) return undefined;
    // Until the next fence, the lines of this same step prove nothing more.
    this.lowest = undefined;
    return Math.round(step);
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

/**
 * Each node's clock steps, and server times made comparable across nodes: a time after a step of
 * its node is moved back by the step. The one correction for independent primaries (trace
 * --nodes): the quorum checker (quorum.ts) reads a recording through it, the Redlock replay
 * (redlock-scenario.ts) casts its clients with it, and the lanes (history.ts) are drawn on it.
 */
export class NodeTimes {
  private readonly steps = new Map<string, { readonly after: number; readonly ms: number }[]>();

  /** Every node clock step of a whole recording, known before its first event is read. */
  static of(events: readonly TraceEvent[]): NodeTimes {
    const times = new NodeTimes();
    for (const e of events) if (e.kind === 'clock-step' && e.node !== undefined) times.step(e.node, e.t, e.stepMs ?? 0);
    return times;
  }

  /** `node` stepped `ms` forward; `after` is the server time of its first line after the step. */
  step(node: string, after: number, ms: number): void {
    const list = this.steps.get(node);
    if (list) list.push({ after, ms });
    else this.steps.set(node, [{ after, ms }]);
  }

  /** Server time `t` of `node` on the common scale: less every step the node took before it. */
  comparable(node: string | undefined, t: number): number {
    let c = t;
    for (const step of (node !== undefined && this.steps.get(node)) || []) if (t >= step.after) c -= step.ms;
    return c;
  }
}
