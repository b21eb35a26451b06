// The parts of the REPL's screen its session state holds (core/repl/state.ts): what the clients
// hold and wait for, the panel's reads, the output lines, the running command and the jobs. Pure
// data; ui/repl-screen.ts assembles them into the screen and re-exports them for the views.

import type { HoldMode } from '../hold-events.js';
import type { LockKind } from '../lock-kind.js';
import type { LockView } from '../lock-view.js';
import type { WhoReport } from '../who/model.js';

/** How an output line reads: a command's result, its messages, the REPL's own voice, or an echo of what was typed. */
export type OutputTone = 'result' | 'message' | 'error' | 'repl' | 'echo' | 'event';

/** One line in the output area (ink <Static>: printed once, scrolls up). */
export interface OutputLine {
  readonly id: number;
  readonly text: string;
  readonly tone: OutputTone;
}

export interface HeldLock {
  readonly client: string;
  readonly key: string;
  readonly kind: LockKind;
  readonly owner: string;
  /** The owner memory's target description: release must go to the same place. */
  readonly target?: string | undefined;
  /** The server it lives on as the prompt names it (`127.0.0.1:6379`, `sandbox:single`), for the panel and the exit question. */
  readonly where?: string | undefined;
  readonly via: 'acquire' | 'hold';
  readonly jobId?: number | undefined;
  readonly mode?: HoldMode | undefined;
  readonly leaseMs: number;
  /** Local time it was taken (or last renewed by `renew`): a read from before says nothing about it. */
  readonly since: number;
  readonly renewals: number;
}

/** A client waiting for a key: a background `hold --wait`, or the command running now. */
export interface Waiting {
  readonly client: string;
  readonly key: string;
  /** The server it waits on, as the prompt names it. */
  readonly where?: string | undefined;
  readonly jobId?: number | undefined;
  readonly untilAt?: number | undefined;
}

/** `who`'s newest report on the REPL's panel, with the target it was read from. */
export interface WhoPanel {
  readonly target: string;
  readonly report: WhoReport;
}

export interface PanelScreen {
  /** Keys the user watches, in the order given (held keys are read too, but shown apart). */
  readonly watched: readonly string[];
  readonly views: Readonly<Record<string, LockView>>;
  /** Local time the read behind `views` was sent: countdowns run from here. */
  readonly readAt?: number | undefined;
  /** Full length of each key's TTL bar: the largest TTL seen for the same holders. */
  readonly scales: Readonly<Record<string, number>>;
  readonly retry?: { readonly at: number; readonly retryInMs: number; readonly error: string } | undefined;
  readonly reconnecting?: boolean | undefined;
  readonly paused?: boolean | undefined;
  readonly intervalMs: number;
}

/** What the prompt shows while a scenario is being stepped through. */
export interface StepView {
  readonly scenario: string;
  readonly variant: string;
  /** 1-based number of the next step, and how many there are. */
  readonly next: number;
  readonly total: number;
  /** The next step in words; undefined while a step runs or once all have started. */
  readonly waiting?: string | undefined;
}

/** The command the prompt waits for. */
export interface RunningView {
  readonly line: string;
  readonly client: string;
  readonly since: number;
  /** Ctrl-C was pressed: it is winding down (a second Ctrl-C stops waiting for it). */
  readonly cancelling: boolean;
}

export interface JobView {
  readonly id: number;
  readonly client: string;
  readonly line: string;
  readonly since: number;
}
