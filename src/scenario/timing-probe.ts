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

/** A client sends `command`; the returned function is called when its reply arrives. */
export type CommandReport = (client: string, command: string) => () => void;

// Commands that wait on the server by design: their round trip says nothing about the machine.
const BLOCKING = new Set(['wait', 'waitaof', 'blpop', 'brpop', 'blmove', 'brpoplpush', 'bzpopmin', 'bzpopmax', 'blmpop', 'bzmpop', 'xread', 'xreadgroup']);

export class TimingProbe {
  private readonly samples: LateSample[] = [];
  /** The event loop's lateness: anything may have been that late, nothing named was. */
  private readonly general: LateSample[] = [];
  private loop: IntervalHistogram | undefined;

  /** Why the run cannot tell at all (a wait that gave up), whatever the samples say. */
  private missed: string | undefined;

  /** When faults began (scenario ms): for every client (a node's fault), or for one (its partition). */
  private readonly disturbances: { readonly at: number; readonly client?: string | undefined }[] = [];

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

  /** A fault starts now: round trips from here on may be slow by design (for `client` only, or for all). */
  disturb(client?: string): void {
    this.disturbances.push({ at: this.clock.now(), client });
  }

  /** A fault has reached `client` by `at` (default: now): its round trips may be slow by design. */
  disturbed(client: string, at = this.clock.now()): boolean {
    return this.disturbances.some((d) => d.at <= at && (d.client === undefined || d.client === client));
  }

  private firstDisturbance(client: string, from: number): number | undefined {
    const hits = this.disturbances.filter((d) => d.at >= from && (d.client === undefined || d.client === client));
    return hits.length === 0 ? undefined : Math.min(...hits.map((d) => d.at));
  }

  /**
   * A command's round trip, as lateness: the plan counts on a reply within the race's tolerance,
   * so one the busy machine (server or client) answered later, before any fault could explain
   * it, makes the run late. E.g. an acquire whose SET reached the server 130 ms late sets a lease
   * that ends 130 ms late, and the other client's on-time step then meets a lock the plan had let
   * expire. Commands sent once a fault began are not measured (latency, partitions and paused
   * nodes slow them on purpose); a command outstanding when one begins counts up to that moment.
   */
  readonly command: CommandReport = (client, command) => {
    if (!this.loop || BLOCKING.has(command)) return () => undefined;
    const sent = this.clock.now();
    if (this.disturbed(client, sent)) return () => undefined;
    return () => {
      const replied = this.clock.now();
      const until = Math.min(replied, this.firstDisturbance(client, sent) ?? replied);
      this.add(`${client}'s ${command.toUpperCase()} reply`, sent, until, 'machine');
    };
  };

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
