// A node's clock stepping forward, seen from the command stream. A fence (an ECHO the trace sends
// on its MONITOR connection and reads back, fence.ts) was sent before the server ran it, so the
// local send time minus the fence's server time is a lower bound of how far this machine's clock
// is ahead of the server's. A later line can arrive late (a busy machine, a backlog), never early:
// its local-minus-server gap is at least that offset. A gap well below the last fence's bound can
// only mean the server's clock jumped ahead (an NTP step, `date`, a VM resumed): Redis expires keys
// by that clock, so every lease on the node ran short by the step. A late first line cannot pass
// for a step (it is compared with a fence, not with other lines), and a step back only raises the
// next fence's bound: it makes leases last longer, never shorter, and is not reported.

/** Smaller drops are not called steps: a fence's own round trip may be this long on a busy machine. */
export const CLOCK_STEP_MIN_MS = 1000;

export class ClockSteps {
  /** The last fence's lower bound of local-minus-server time (ms); undefined before one, and after a step. */
  private floor: number | undefined;

  /** A line of server time `serverT` arrived at local time `localT`: the step (ms) when the server's clock jumped ahead. */
  observe(localT: number, serverT: number): number | undefined {
    if (this.floor === undefined) return undefined;
    const step = this.floor - (localT - serverT);
    if (step < CLOCK_STEP_MIN_MS) return undefined;
    this.floor = undefined;
    return Math.round(step);
  }

  /** A fence sent at local time `sentT` came back with server time `serverT`. */
  fenced(sentT: number, serverT: number): void {
    this.floor = sentT - serverT;
  }
}

/** The node event for a step seen at server time `t`. */
export function clockStepEvent(t: number, stepMs: number): { kind: 'clock-step'; t: number; lock: '*'; stepMs: number; detail: string } {
  return { kind: 'clock-step', t, lock: '*', stepMs, detail: `the server's clock moved ${(stepMs / 1000).toFixed(1)} s forward at once: its leases ran short by that much` };
}
