import { ExitCode } from '../exit-codes.js';
import type { History } from './history.js';
import type { Outcome, TimingReport } from './timing.js';
import type { Verdict, ViolationKind } from './verdict.js';

/** One variant (`unsafe`, `fixed`, ...) of a scenario as it ran: its history, verdict and expectation. */
export interface VariantRun {
  readonly variant: string;
  /** One line from the scenario file: what this variant does differently. */
  readonly description: string;
  /** Violation kinds the scenario file expects; empty means `expect: safe`. */
  readonly expected: readonly ViolationKind[];
  readonly verdict: Verdict;
  /** The verdict found exactly the expected kinds (says nothing when the outcome is inconclusive). */
  readonly matched: boolean;
  /** as-expected / not-as-expected when the run kept to its timetable, inconclusive when it did not. */
  readonly outcome: Outcome;
  /** How late its timed steps ran against what the race tolerates (the last attempt's). */
  readonly timing: TimingReport;
  /** Runs it took: an inconclusive run is tried again, a bounded number of times. */
  readonly attempts: number;
  readonly history: History;
  readonly durationMs: number;
}

/** A whole `scenario run`: every variant that ran, in file order. */
export interface ScenarioRun {
  readonly name: string;
  readonly title: string;
  readonly variants: readonly VariantRun[];
}

/** Every variant reached its expected verdict on time. */
export function allMatched(run: ScenarioRun): boolean {
  return run.variants.every((v) => v.outcome === 'as-expected');
}

/** The exit code of outcomes: 7 when any verdict was wrong, else 8 when any could not be told, else 0. */
export function outcomesExitCode(outcomes: readonly Outcome[]): number {
  if (outcomes.includes('not-as-expected')) return ExitCode.verdictMismatch;
  if (outcomes.includes('inconclusive')) return ExitCode.inconclusive;
  return ExitCode.ok;
}
