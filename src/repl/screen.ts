// What the REPL's screen draws: one immutable snapshot, rebuilt by the session after changes.

import type { SandboxStatus } from '../sandbox/index.js';
import type { HeldLock, Waiting } from './held.js';
import type { OutputLine } from './output.js';
import type { PanelScreen } from './panel-state.js';
import type { StepView } from './step.js';

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

export interface SandboxPanel {
  readonly name: string;
  readonly status?: SandboxStatus | undefined;
  readonly error?: string | undefined;
}

export interface ReplScreen {
  readonly output: readonly OutputLine[];
  readonly prompt: string;
  readonly client: string;
  readonly clients: readonly string[];
  /** The prompt's target: `127.0.0.1:6379`, `sandbox:single`. */
  readonly target: string;
  readonly running?: RunningView | undefined;
  /** Lines typed while a command runs, waiting their turn. */
  readonly queued: number;
  readonly question?: string | undefined;
  readonly panel: PanelScreen;
  readonly held: readonly HeldLock[];
  /** Locks `acquire` left on other targets used in this session: shown with their target, never read from this one. */
  readonly heldElsewhere: readonly HeldLock[];
  readonly waiting: readonly Waiting[];
  readonly jobs: readonly JobView[];
  readonly sandbox?: SandboxPanel | undefined;
  readonly stepping?: StepView | undefined;
  readonly ended: boolean;
}
