// Everything a trace view shows, folded from events as they come: the checker's findings, the
// per-lock summary, counts, and a bounded window of recent events for the lanes. Memory stays
// flat however long the trace runs: only the window and per-lock tallies are kept.

import { TraceChecker, type CheckerOptions, type Finding } from './checker.js';
import { findingClass, type FindingClass } from './finding-kinds.js';
import { BlindPeriods, type BlindPeriod } from './blind.js';
import type { TraceEvent } from './events.js';
import { TraceSummary, type LockSummary } from './summary.js';

const NO_FINDINGS: readonly Finding[] = [];

/** What fails a trace (exit 7): an unsafe finding, or with `--fail-on liveness` a liveness one too. */
export type FailOn = Exclude<FindingClass, 'warning'>;

/** Recent events kept for the live lanes and the event pane. */
export const RECENT_EVENTS = 2000;

export class TraceSession {
  readonly checker: TraceChecker;
  readonly summary = new TraceSummary();
  private readonly blindness = new BlindPeriods();
  private readonly recentEvents: TraceEvent[] = [];
  events = 0;

  /**
   * `redlockNodes`: a trace of independent Redlock primaries (the quorum view, see checker.ts).
   * `keep`: the most recent events kept for recent() (0 where nothing draws them: `trace --from --json`).
   */
  constructor(
    readonly opts: CheckerOptions = {},
    private readonly keep = RECENT_EVENTS,
  ) {
    this.checker = new TraceChecker(opts);
  }

  /** Folds events in; returns the findings they completed. */
  push(events: readonly TraceEvent[]): readonly Finding[] {
    let found: readonly Finding[] = NO_FINDINGS;
    for (const e of events) {
      this.events++;
      const more = this.checker.push(e);
      // Most events complete no finding: no new array for them.
      if (more.length > 0) found = found.length === 0 ? more : [...found, ...more];
      this.summary.push(e);
      this.blindness.push(e);
      if (this.keep > 0) this.recentEvents.push(e);
    }
    if (this.recentEvents.length > this.keep * 1.5) this.recentEvents.splice(0, this.recentEvents.length - this.keep);
    return found;
  }

  get findings(): readonly Finding[] {
    return this.checker.findings;
  }

  get unsafe(): boolean {
    return this.checker.findings.some((f) => f.unsafe);
  }

  /** A finding was seen that fails the run: unsafe, or also liveness (a deadlock, a starvation). */
  fails(on: FailOn): boolean {
    return this.checker.findings.some((f) => {
      const cls = findingClass(f.kind);
      return cls === 'unsafe' || cls === on;
    });
  }

  recent(limit = this.keep): readonly TraceEvent[] {
    return this.recentEvents.slice(-limit);
  }

  /** Periods the trace saw nothing of a node: nothing found then proves nothing. */
  get blind(): BlindPeriod[] {
    return this.blindness.all();
  }

  locks(): LockSummary[] {
    return this.summary.locks(this.checker.findings);
  }
}
