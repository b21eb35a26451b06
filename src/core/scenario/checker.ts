// The history checker: reads a recorded (or hand-written) history and finds every violation of
// the lock's promises, each with its clients, its time window and one sentence for the user.
// Pure: the same history always gives the same verdict. One file per check family:
//   checker-intervals.ts  operations paired, holds and critical sections per client
//   checker-exclusion.ts  mutual-exclusion
//   checker-stale.ts      stale-holder, stale-write
//   checker-counter.ts    lost-update
//   checker-liveness.ts   deadlock, starvation

import { checkLostUpdate } from './checker-counter.js';
import { checkMutualExclusion } from './checker-exclusion.js';
import { deriveIntervals } from './checker-intervals.js';
import { checkLiveness } from './checker-liveness.js';
import { checkStaleHolder, checkStaleWrite } from './checker-stale.js';
import type { History, OpEvent } from './history.js';
import { VIOLATION_KINDS, type CheckOptions, type Verdict, type Violation } from './verdict.js';

/** Every violation the history shows, sorted by the start of its window (then its end, then kind). */
export function checkHistory(history: History, opts: CheckOptions): Verdict {
  const intervals = deriveIntervals(history);
  const ops = history.events.filter((e): e is OpEvent => e.kind === 'op');
  const violations = [
    ...checkMutualExclusion(intervals),
    ...checkStaleHolder(history, intervals),
    ...checkStaleWrite(intervals, ops),
    ...checkLostUpdate(history, intervals),
    ...checkLiveness(intervals, opts.starvationMs),
  ];
  return { violations: violations.sort(byWindow) };
}

function byWindow(a: Violation, b: Violation): number {
  return a.from - b.from || a.to - b.to || VIOLATION_KINDS.indexOf(a.kind) - VIOLATION_KINDS.indexOf(b.kind);
}

/** One line per violation for humans ("stale-write: A's write (token 33) overwrote ..."); a safe verdict is one line saying so. */
export function describeVerdict(verdict: Verdict): string[] {
  if (verdict.violations.length === 0) return ['safe: no violation found'];
  return verdict.violations.map((v) => `${v.kind}: ${v.message}`);
}
