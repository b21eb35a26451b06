// Background commands of the REPL: `hold` always (it lasts until released, and the panel shows
// it), and any command ending in `&`. Each has its own AbortController, so Ctrl-C on the prompt
// never touches them; `cancel` or `release <key>` ends them the way Ctrl-C ends a one-shot hold.

import { describeHoldEvent, type HoldLineContext } from '../commands/hold-lines.js';
import type { HoldMode } from '../core/hold-events.js';
import type { LockKind } from '../locks/types.js';
import { parseHoldLine, type HeldLock, type Waiting } from './held.js';

export interface Job {
  readonly id: number;
  readonly client: string;
  readonly line: string;
  readonly since: number;
  readonly controller: AbortController;
  done: Promise<number>;
  /** Set for `hold`: what its event stream said so far. */
  readonly hold?: HoldState | undefined;
}

export interface HoldState {
  readonly key: string;
  /** The user asked for --json: show the event lines as they are. */
  readonly rawJson: boolean;
  /** Where the hold runs: the owner memory's name for its target, and the prompt's label for it. */
  readonly target?: string | undefined;
  readonly where?: string | undefined;
  kind?: string | undefined;
  owner?: string | undefined;
  mode?: HoldMode | undefined;
  waitingUntil?: number | undefined;
  held?: HeldLock | undefined;
}

/** Folds one output line of a background hold into its state; returns what to print for it. */
export function holdLine(job: Job & { hold: HoldState }, line: string): string | undefined {
  const parsed = parseHoldLine(line);
  const state = job.hold;
  if (!parsed || (parsed.key !== undefined && parsed.key !== state.key)) return line;
  const { event } = parsed;
  state.kind = parsed.kind ?? state.kind;
  state.owner = parsed.owner ?? state.owner;
  switch (event.type) {
    case 'acquiring':
      state.waitingUntil = event.waitMs > 0 ? event.at + event.waitMs : undefined;
      break;
    case 'acquired':
      state.waitingUntil = undefined;
      state.mode = event.mode;
      state.held = {
        client: job.client,
        key: state.key,
        kind: (state.kind ?? 'reentrant') as LockKind,
        owner: state.owner ?? '',
        target: state.target,
        where: state.where,
        via: 'hold',
        jobId: job.id,
        mode: event.mode,
        leaseMs: event.leaseMs,
        since: event.at,
        renewals: 0,
      };
      break;
    case 'renewed':
      if (state.held) state.held = { ...state.held, renewals: event.renewals };
      break;
    case 'not-acquired':
    case 'released':
    case 'lost':
    case 'expired':
      state.waitingUntil = undefined;
      state.held = undefined;
      break;
    default:
      break;
  }
  if (state.rawJson) return line;
  // Renewals are counted on the panel; a line every lease/3 would bury everything else.
  if (event.type === 'renewed') return undefined;
  const ctx: HoldLineContext = { key: state.key, kind: state.kind ?? '', owner: state.owner ?? '', mode: state.mode ?? 'watchdog' };
  return describeHoldEvent(ctx, event);
}

/** What the jobs hold and wait for, for the panel. */
export function jobLocks(jobs: Iterable<Job>): { held: HeldLock[]; waiting: Waiting[] } {
  const held: HeldLock[] = [];
  const waiting: Waiting[] = [];
  for (const job of jobs) {
    if (job.hold?.held) held.push(job.hold.held);
    if (job.hold?.waitingUntil !== undefined) waiting.push({ client: job.client, key: job.hold.key, where: job.hold.where, jobId: job.id, untilAt: job.hold.waitingUntil });
  }
  return { held, waiting };
}

/** `%2`, `2`: a job id as typed. */
export function parseJobId(text: string): number | undefined {
  const match = /^%?(\d+)$/.exec(text);
  return match ? Number(match[1]) : undefined;
}
