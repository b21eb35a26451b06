// The race judging its own harness. A race's clients are timers: a holder renews every lease/3
// (or, without renewals, finishes its hold before its lease ends). When the processes driving
// them ran later than the lease allows, a holder can lose its lock by the harness's fault alone,
// and a violation then says nothing about the lock: the run is inconclusive, with what to change.
// A violation no lateness explains (the plan is unsafe by design, or the harness kept time) stays
// UNSAFE. Pure.

import { formatDuration } from '../duration.js';
import type { RacePlan } from './plan.js';

export type RaceOutcome = 'safe' | 'unsafe' | 'inconclusive';

export interface RaceJudgement {
  readonly outcome: RaceOutcome;
  /** How late a timer may run before a holder loses its lock by lateness alone; undefined when the plan is unsafe by design. */
  readonly slackMs?: number | undefined;
  /** The latest any of the harness's timers ran (parent and workers). */
  readonly lateMs: number;
  /** Inconclusive: why, and what to change. */
  readonly reason?: string | undefined;
}

/**
 * Chaos whose fault alone can let two clients in: a pause outlasting the lease, a failover losing
 * the key, a clock jump, latency or a partition delaying a renewal. kill-holder is not one: a dead
 * holder writes nothing more, and its lease runs out before anyone else enters, so a violation
 * beside it is the lock's or the harness's lateness, as without chaos.
 */
function chaosBreaksLeases(chaos: RacePlan['chaos']): boolean {
  return chaos !== undefined && chaos !== 'kill-holder';
}

/**
 * How late a holder's timers may run before its lease runs out under it: with renewals, the two
 * thirds of the lease between a renewal's due time and the lease's end; without, the lease minus
 * the hold. Undefined when violations need no lateness at all: a naive DEL, chaos that breaks
 * leases on purpose, holds with no upper bound (exp) or longer than the lease.
 */
export function raceSlackMs(plan: Pick<RacePlan, 'release' | 'chaos' | 'renew' | 'leaseMs' | 'holdMs' | 'holdDist'>): number | undefined {
  if (plan.release === 'naive-del' || chaosBreaksLeases(plan.chaos)) return undefined;
  if (plan.renew) return plan.leaseMs - Math.floor(plan.leaseMs / 3);
  if (plan.holdDist === 'exp') return undefined;
  const longestHold = plan.holdDist === 'uniform' ? 2 * plan.holdMs : plan.holdMs;
  const slack = plan.leaseMs - longestHold;
  return slack > 0 ? slack : undefined;
}

/** What the clients managed: a race in which nobody held the lock proves nothing. */
export interface RaceActivity {
  readonly acquisitions: number;
  /** Lock calls that failed (a key of another type, a server going away). */
  readonly errors: number;
}

/**
 * Why a race without violations still proves nothing: no client ever held the lock, or calls
 * failed without a --chaos fault to explain them, so the history has holes. Under chaos, failed
 * calls are the fault at work.
 */
function provesNothing(plan: Pick<RacePlan, 'chaos'>, activity: RaceActivity): string | undefined {
  if (activity.acquisitions === 0) return 'no client acquired the lock';
  if (activity.errors > 0 && plan.chaos === undefined) {
    return `${activity.errors} lock call${activity.errors === 1 ? '' : 's'} failed`;
  }
  return undefined;
}

/** The race's result from its violations, how late its harness ran, and what its clients managed. */
export function judgeRace(plan: RacePlan, violations: number, lateMs: number, activity?: RaceActivity): RaceJudgement {
  const slackMs = raceSlackMs(plan);
  const late = Math.round(lateMs);
  const nothing = violations === 0 && activity !== undefined ? provesNothing(plan, activity) : undefined;
  if (nothing !== undefined) return { outcome: 'inconclusive', slackMs, lateMs: late, reason: `${nothing}, so the run proves nothing about safety` };
  if (violations === 0) return { outcome: 'safe', slackMs, lateMs: late };
  if (slackMs === undefined || lateMs < slackMs) return { outcome: 'unsafe', slackMs, lateMs: late };
  const fix = plan.procs > 0 ? `more --procs than ${plan.procs}` : '--procs (worker processes)';
  return {
    outcome: 'inconclusive',
    slackMs,
    lateMs: late,
    reason:
      `the harness's timers ran ${formatDuration(late)} late, more than the ${formatDuration(slackMs)} a holder's ` +
      `${plan.renew ? 'renewal' : 'hold'} can be late before its lease runs out: the violations may be the harness's, not the lock's. ` +
      `Run it again with ${fix}, fewer --clients, or a longer --lease`,
  };
}
