// Feeds the live view: the running figures, and violations found so far by the checker on the
// recent history. Called at the view's pace (a few times a second), never by the clients.

import type { RaceLiveState } from '../core/race/live.js';
import { liveChecker } from './live-check.js';
import type { RaceMonitor } from './run.js';

/** A function the view polls for its next state. */
export function liveSource(monitor: RaceMonitor): () => RaceLiveState {
  const { plan } = monitor;
  // Far enough back to hold any critical section that is still open, a stretched pause included.
  const checker = liveChecker(Math.max(1000, 4 * (plan.leaseMs + plan.holdMs), plan.chaos ? 2 * plan.chaosForMs : 0));
  return () => {
    const now = monitor.now();
    for (const key of plan.keys) checker.check(key, monitor.clients(key), monitor.events(key), now);
    return { plan, target: monitor.target, snapshot: monitor.snapshot(), violations: checker.found() };
  };
}
