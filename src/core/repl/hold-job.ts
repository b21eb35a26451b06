// A background `hold` of the REPL, as its events (typed outcomes) tell it: whether it waits for the
// lock, and once it has it, the lock with its lease and renewals for the panel.

import type { HoldEvent } from '../hold-events.js';
import type { LockKind } from '../lock-kind.js';
import type { HeldLock, Waiting } from './screen-parts.js';

/** Once its events have said so: its lock's kind, owner and target, and whether it renews. */
type HoldKnown = Partial<Pick<HeldLock, 'kind' | 'owner' | 'target' | 'where' | 'mode'>>;

export interface HoldJob extends HoldKnown {
  readonly key: string;
  /** The user asked for --json: the command prints its NDJSON and the REPL adds no words of its own. */
  readonly rawJson: boolean;
  readonly waitingUntil?: number | undefined;
  readonly held?: HeldLock | undefined;
}

/** A command running in the background (`hold`, a line ending in &). */
export interface JobState {
  readonly id: number;
  readonly client: string;
  readonly line: string;
  readonly since: number;
  readonly hold?: HoldJob | undefined;
}

/** Who the events are about: the outcome's lock, and where it lives as the prompt names it. */
export interface HoldFacts {
  readonly kind: LockKind;
  readonly owner: string;
  readonly target: string;
  readonly where: string;
}

/** The hold after one of its events. */
export function foldHoldEvent(job: JobState, hold: HoldJob, facts: HoldFacts, event: HoldEvent): HoldJob {
  const known = { ...hold, kind: facts.kind, owner: facts.owner, target: facts.target, where: facts.where };
  switch (event.type) {
    case 'acquiring':
      return { ...known, waitingUntil: event.waitMs > 0 ? event.at + event.waitMs : undefined };
    case 'acquired':
      return {
        ...known,
        waitingUntil: undefined,
        mode: event.mode,
        held: {
          client: job.client,
          key: hold.key,
          kind: facts.kind,
          owner: facts.owner,
          target: facts.target,
          where: facts.where,
          via: 'hold',
          jobId: job.id,
          mode: event.mode,
          leaseMs: event.leaseMs,
          since: event.at,
          renewals: 0,
        },
      };
    case 'renewed':
      return known.held ? { ...known, held: { ...known.held, renewals: event.renewals } } : known;
    case 'not-acquired':
    case 'released':
    case 'lost':
    case 'expired':
      return { ...known, waitingUntil: undefined, held: undefined };
    default:
      return known;
  }
}

/** What the jobs hold and wait for, for the panel. */
export function jobLocks(jobs: Iterable<JobState>): { held: HeldLock[]; waiting: Waiting[] } {
  const held: HeldLock[] = [];
  const waiting: Waiting[] = [];
  for (const job of jobs) {
    if (job.hold?.held) held.push(job.hold.held);
    if (job.hold?.waitingUntil !== undefined) {
      waiting.push({
        client: job.client,
        key: job.hold.key,
        where: job.hold.where,
        jobId: job.id,
        untilAt: job.hold.waitingUntil,
      });
    }
  }
  return { held, waiting };
}
