// Whether a run kept to its timetable. A scenario's race is a matter of a few hundred ms: a step
// that runs late on a busy machine (or waits at the REPL's prompt) can turn an unsafe race safe
// or the other way round, so a verdict only counts when every timed thing ran within the lateness
// the race tolerates. Otherwise the result is inconclusive, with the reason: never a wrong verdict.
// Pure: the runner measures, this judges.

import { formatMs } from '../duration.js';

/** Why something ran late: the machine (CPU starved, timers late) or the user (a step held at the prompt). */
export type LateCause = 'machine' | 'prompt';

/** One timed thing measured against its plan, in scenario ms. */
export interface LateSample {
  /** "step 4 (B acquire)", "A's 200 ms gap", "the runner's timers". */
  readonly what: string;
  readonly plannedMs: number;
  readonly actualMs: number;
  readonly cause: LateCause;
}

export interface TimingReport {
  /** Lateness (scenario ms) the race tolerates: its own `tolerance`, or derived from its leases. */
  readonly toleranceMs: number;
  /** How many timed things were measured. */
  readonly measured: number;
  /** The latest of them (undefined when nothing was measured). */
  readonly worst?: { readonly what: string; readonly lateMs: number; readonly cause: LateCause } | undefined;
  /** Why the verdict cannot be trusted; undefined when the run kept to its timetable. */
  readonly inconclusive?: string | undefined;
}

export const lateBy = (s: LateSample): number => Math.max(0, s.actualMs - s.plannedMs);

const ms = (value: number): string => (value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : formatMs(value));

/**
 * The event loop's own lateness (`general`) may have fallen where no timer was due; the named
 * samples already cover every step, client timer and renewal. It makes a run inconclusive only
 * beyond this many times the tolerance.
 */
export const GENERAL_FACTOR = 2;

const latest = (samples: readonly LateSample[]): LateSample | undefined =>
  samples.reduce<LateSample | undefined>((worst, s) => (!worst || lateBy(s) > lateBy(worst) ? s : worst), undefined);

/** The first thing (by planned time) that left the window: what every later lateness may follow from. */
const firstOver = (samples: readonly LateSample[], toleranceMs: number): LateSample | undefined =>
  samples.reduce<LateSample | undefined>((first, s) => (rounded(s) > toleranceMs && (!first || s.plannedMs < first.plannedMs) ? s : first), undefined);

/** Lateness to a tenth of a ms, as reported and as held against the tolerance. */
const rounded = (s: LateSample): number => Math.round(lateBy(s) * 10) / 10;

/**
 * The report of a run: the latest sample, and the reason when it left the window. A named step
 * or timer that was too late is the reason given, before the event loop's own figure (`general`),
 * which only says that something may have been. Of several too late, the reason is the first
 * by planned time, not the latest: a wait whose event came 1.4 s late holds back every step
 * after it, and those may add a little of their own, but the cause to report is the event.
 */
export function judgeTiming(samples: readonly LateSample[], toleranceMs: number, general: readonly LateSample[] = []): TimingReport {
  const named = latest(samples);
  const loop = latest(general);
  const loopTooLate = loop !== undefined && lateBy(loop) > toleranceMs * GENERAL_FACTOR;
  const worst = named && (lateBy(named) > toleranceMs || !loopTooLate) ? named : loop;
  if (!worst) return { toleranceMs, measured: 0 };
  const report = { toleranceMs, measured: samples.length + general.length, worst: { what: worst.what, lateMs: rounded(worst), cause: worst.cause } };
  if (worst === named ? rounded(worst) <= toleranceMs : !loopTooLate) return report;
  const cause = worst === named ? (firstOver(samples, toleranceMs) ?? worst) : worst;
  const lateMs = rounded(cause);
  const why =
    cause.cause === 'prompt'
      ? `${cause.what} waited ${ms(lateMs)} past its time at the prompt`
      : `${cause.what} ran ${ms(lateMs)} late: the machine was too busy`;
  const allowed = worst === named ? ms(toleranceMs) : `${ms(toleranceMs * GENERAL_FACTOR)} anywhere, ${ms(toleranceMs)} in a step or timer`;
  return { ...report, inconclusive: `${why} (this race tolerates ${allowed})` };
}

/** What a variant's result means: its verdict is the expected one, is not, or cannot be told. */
export type Outcome = 'as-expected' | 'not-as-expected' | 'inconclusive';

/** A late run says nothing either way, whatever its verdict. */
export function outcomeOf(matched: boolean, timing: TimingReport): Outcome {
  if (timing.inconclusive !== undefined) return 'inconclusive';
  return matched ? 'as-expected' : 'not-as-expected';
}

/** How an outcome reads in a view: its mark and words. */
export const OUTCOME_TEXT: Readonly<Record<Outcome, { readonly mark: string; readonly words: string }>> = {
  'as-expected': { mark: '✓', words: 'as expected' },
  'not-as-expected': { mark: '✗', words: 'not as expected' },
  inconclusive: { mark: '?', words: 'inconclusive' },
};
