// A node's clock stepping forward, seen from the command stream: each MONITOR line carries the
// server's time, and the gap between the local time it arrived and that time only grows while the
// clocks agree (a busy machine or network delivers late, never early). A gap that drops well below
// the smallest seen means the server's clock jumped ahead (an NTP step, `date`, a VM resumed): Redis
// expires keys by that clock, so every lease on the node ran short by the step. A step back makes
// leases last longer, never shorter, and is not reported; but it must not hide the next step
// forward behind a smallest gap from before it. A fence (an ECHO the trace sends and reads back)
// bounds the gap from below: it was sent before the server ran it. When that bound is well above
// the smallest gap, the server's clock went back, and the smallest gap starts again from the fence.

/** Smaller drops are not called steps: the first lines of a busy start may arrive this late. */
export const CLOCK_STEP_MIN_MS = 1000;

export class ClockSteps {
  /** Smallest local-minus-server gap seen (ms); a step lowers it to the new gap. */
  private minGap = Number.POSITIVE_INFINITY;

  /** A line of server time `serverT` arrived at local time `localT`: the step (ms) when the server's clock jumped ahead. */
  observe(localT: number, serverT: number): number | undefined {
    const gap = localT - serverT;
    const first = this.minGap === Number.POSITIVE_INFINITY;
    const step = this.minGap - gap;
    if (gap < this.minGap) this.minGap = gap;
    return !first && step >= CLOCK_STEP_MIN_MS ? Math.round(step) : undefined;
  }

  /** A fence sent at local time `sentT` came back at `localT` with server time `serverT`. */
  fenced(sentT: number, localT: number, serverT: number): void {
    if (sentT - serverT > this.minGap + CLOCK_STEP_MIN_MS) this.minGap = localT - serverT;
  }
}

/** The node event for a step seen at server time `t`. */
export function clockStepEvent(t: number, stepMs: number): { kind: 'clock-step'; t: number; lock: '*'; stepMs: number; detail: string } {
  return { kind: 'clock-step', t, lock: '*', stepMs, detail: `the server's clock moved ${(stepMs / 1000).toFixed(1)} s forward at once: its leases ran short by that much` };
}
