import type { History } from './history.js';
import type { Verdict, ViolationKind } from './verdict.js';

/** One variant (`unsafe`, `fixed`, ...) of a scenario as it ran: its history, verdict and expectation. */
export interface VariantRun {
  readonly variant: string;
  /** One line from the scenario file: what this variant does differently. */
  readonly description: string;
  /** Violation kinds the scenario file expects; empty means `expect: safe`. */
  readonly expected: readonly ViolationKind[];
  readonly verdict: Verdict;
  /** The verdict found exactly the expected kinds. */
  readonly matched: boolean;
  readonly history: History;
  readonly durationMs: number;
}

/** A whole `scenario run`: every variant that ran, in file order. */
export interface ScenarioRun {
  readonly name: string;
  readonly title: string;
  readonly variants: readonly VariantRun[];
}

/** Exit 0 when every variant matched its expected verdict, 7 otherwise (see exit-codes). */
export function allMatched(run: ScenarioRun): boolean {
  return run.variants.every((v) => v.matched);
}
