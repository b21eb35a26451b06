// One race client's lock commands timed on the server's clock (the TIME pipelined behind each,
// src/redis/server-time.ts), turned into its server-side wait and hold (core/race/server-timing.ts).
// Only for a lock on one server: Redlock's nodes each have their own clock.

import { serverHoldMs, serverWaitMs, type ServerHold } from '../core/race/server-timing.js';
import { withServerTimes } from '../redis/server-time.js';

/** Release outcomes that found the lock still the client's. */
const STILL_OURS: ReadonlySet<string> = new Set(['released', 'decremented']);

export class ServerTiming {
  private hold: ServerHold | undefined;

  constructor(
    private readonly leaseMs: number,
    /** False: nothing is timed (several servers), every figure is undefined. */
    private readonly enabled: boolean,
  ) {}

  /** Runs an acquire; when it took the lock, its wait on the server's clock. */
  async acquire<T>(fn: () => Promise<T>, acquired: (value: T) => boolean): Promise<{ value: T; serverWaitMs: number | undefined }> {
    if (!this.enabled) return { value: await fn(), serverWaitMs: undefined };
    const { value, times } = await withServerTimes(fn);
    const at = times.at(-1);
    this.hold = acquired(value) && at !== undefined ? { acquiredAt: at, leaseFrom: at, leaseMs: this.leaseMs } : undefined;
    return { value, serverWaitMs: this.hold ? serverWaitMs(times) : undefined };
  }

  /** Runs a renewal; a successful one moves the lease's start. */
  async renew(fn: () => Promise<boolean>): Promise<boolean> {
    if (!this.enabled) return fn();
    const { value, times } = await withServerTimes(fn);
    const at = times.at(-1);
    if (value && this.hold && at !== undefined && Number.isFinite(at)) this.hold = { ...this.hold, leaseFrom: at };
    return value;
  }

  /** Runs a release; the hold it ended, on the server's clock. */
  async release(fn: () => Promise<string>): Promise<{ outcome: string; serverHoldMs: number | undefined }> {
    const hold = this.hold;
    this.hold = undefined;
    if (!this.enabled || !hold) return { outcome: await fn(), serverHoldMs: undefined };
    const { value, times } = await withServerTimes(fn);
    const at = times.at(-1);
    return { outcome: value, serverHoldMs: at === undefined ? undefined : serverHoldMs(hold, at, STILL_OURS.has(value)) };
  }
}
