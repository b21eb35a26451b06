// What the history checker can find, and how a variant's result compares with what its scenario
// file expects.

/**
 * - mutual-exclusion: two clients inside the critical section at once.
 * - stale-holder: a client entered or acted (write / incr) while the server no longer said it held the lock.
 * - stale-write: the resource accepted a write from a holder older than one whose write it had already accepted.
 * - lost-update: the counter ends lower than the number of increments that completed.
 * - deadlock: a client waited longer than the bound while no live client held the lock.
 * - starvation: a client waited longer than the bound while others kept acquiring it.
 */
export const VIOLATION_KINDS = ['mutual-exclusion', 'stale-holder', 'stale-write', 'lost-update', 'deadlock', 'starvation'] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

export interface Violation {
  readonly kind: ViolationKind;
  /** The clients involved, in the order they matter ("A overwrote B": [A, B]). */
  readonly clients: readonly string[];
  /** The time window of the violation, ms since the run started. */
  readonly from: number;
  readonly to: number;
  /** One sentence a user understands without the history: "A and B were both in the critical section for 310 ms". */
  readonly message: string;
}

export interface CheckOptions {
  /** Waiting longer than this for an acquisition is deadlock or starvation. */
  readonly starvationMs: number;
}

/** Safe when no violation was found. */
export interface Verdict {
  readonly violations: readonly Violation[];
}

/** The kinds found, each once, in VIOLATION_KINDS order. */
export function violationKinds(verdict: Verdict): ViolationKind[] {
  const found = new Set(verdict.violations.map((v) => v.kind));
  return VIOLATION_KINDS.filter((k) => found.has(k));
}

/** A variant matches when it found exactly the kinds its file expects (none: `expect: safe`). */
export function matchesExpectation(verdict: Verdict, expected: readonly ViolationKind[]): boolean {
  const found = violationKinds(verdict);
  const wanted = VIOLATION_KINDS.filter((k) => expected.includes(k));
  return found.length === wanted.length && found.every((k, i) => k === wanted[i]);
}
