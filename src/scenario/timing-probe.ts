// The runner's stopwatch: every step's dispatch, every client sleep and pause, and the event
// loop itself measured against the plan, in scenario ms. judgeTiming (core) decides from these
// whether the run kept to its timetable.

import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { judgeTiming, type LateCause, type LateSample, type TimingReport } from '../core/scenario/timing.js';
import type { RunClock } from './clock.js';

// The loop monitor's sampling interval; its readings include it, so it is taken off.
const LOOP_RESOLUTION_MS = 10;

/** A wall-clock timer set for `plannedRealMs` fired `actualRealMs` after it was set. */
export type TimerReport = (what: string, plannedRealMs: number, actualRealMs: number) => void;

export class TimingProbe {
  private readonly samples: LateSample[] = [];
  /** The event loop's lateness: anything may have been that late, nothing named was. */
  private readonly general: LateSample[] = [];
  private loop: IntervalHistogram | undefined;

  /** Why the run cannot tell at all (a wait that gave up), whatever the samples say. */
  private missed: string | undefined;

  constructor(private readonly clock: RunClock) {}

  /** Something the race depends on was not seen in time (a wait gave up): the run is inconclusive for this reason. */
  miss(reason: string): void {
    this.missed ??= reason;
  }

  /** Starts watching the event loop (with the run clock). */
  start(): void {
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
  }

  /** Stops watching the event loop: what happens after the race (settling, teardown) does not count. */
  stop(): void {
    const loop = this.loop;
    if (!loop) return;
    this.loop = undefined;
    loop.disable();
    if (loop.count === 0) return;
    const lateReal = Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS);
    this.general.push({ what: 'the runner\'s timers', plannedMs: 0, actualMs: this.clock.scenario(lateReal), cause: 'machine' });
  }

  add(what: string, plannedMs: number, actualMs: number, cause: LateCause): void {
    this.samples.push({ what, plannedMs, actualMs, cause });
  }

  /** A wall-clock timer's lateness, as a sample in scenario ms. */
  readonly timer: TimerReport = (what, plannedRealMs, actualRealMs) => {
    const now = this.clock.now();
    const late = this.clock.scenario(actualRealMs - plannedRealMs);
    this.add(what, now - late, now, 'machine');
  };

  report(toleranceMs: number): TimingReport {
    this.stop();
    const report = judgeTiming(this.samples, toleranceMs, this.general);
    return this.missed === undefined ? report : { ...report, inconclusive: this.missed };
  }
}

/**
 * Blocks this process for `ms` (a test hook: a machine too busy to run anything, timers and
 * replies included). Bounded by its argument.
 */
export function stallProcess(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin: nothing else in this process may run
  }
}
