// A race client's waits and holds on the server's clock, from the server time after each lock
// command (race/server-timing.ts collects them). The same definitions as the exporter's, which
// reads the same commands' times from MONITOR (core/export/fold.ts): a wait runs from the first
// attempt to the attempt that took the lock; a hold from that attempt to the release, or, when
// the lease ran out first, to the lease's end (the last acquisition or renewal plus the lease),
// which is where the trace puts the expiry. Pure.

/** From the first attempt to the last (the one that took the lock); undefined without two usable times. */
export function serverWaitMs(attemptTimes: readonly number[]): number | undefined {
  const first = attemptTimes[0];
  const last = attemptTimes.at(-1);
  if (first === undefined || last === undefined || !Number.isFinite(first) || !Number.isFinite(last)) return undefined;
  return Math.max(0, last - first);
}

export interface ServerHold {
  /** Server time of the attempt that took the lock. */
  readonly acquiredAt: number;
  /** Server time of the last command that set the lease (the acquisition or a renewal). */
  readonly leaseFrom: number;
  readonly leaseMs: number;
}

/**
 * The hold's length on the server's clock: to `releasedAt` when the release found the lock still
 * ours, else to the lease's end (never past the release that found it gone).
 */
export function serverHoldMs(hold: ServerHold, releasedAt: number, stillOurs: boolean): number | undefined {
  const end = stillOurs ? releasedAt : Math.min(releasedAt, hold.leaseFrom + hold.leaseMs);
  if (!Number.isFinite(end) || !Number.isFinite(hold.acquiredAt)) return undefined;
  return Math.max(0, end - hold.acquiredAt);
}
