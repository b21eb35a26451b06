// What the REPL's screen draws: one immutable snapshot the REPL session rebuilds after changes.
// The view model belongs to the views; the REPL host fills it in.

import type {
  HeldLock,
  JobView,
  OutputLine,
  PanelScreen,
  RunningView,
  StepView,
  Waiting,
  WhoPanel,
} from '../core/repl/screen-parts.js';
import type { SandboxStatus } from '../sandbox/index.js';

export type {
  HeldLock,
  JobView,
  OutputLine,
  OutputTone,
  PanelScreen,
  RunningView,
  StepView,
  Waiting,
  WhoPanel,
} from '../core/repl/screen-parts.js';

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
  /** The newest `who` report (the `who` command), until the next one. */
  readonly who?: WhoPanel | undefined;
  readonly ended: boolean;
}
