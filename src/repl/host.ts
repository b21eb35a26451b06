// What the REPL's commands (builtins, dispatch, exit, step) see of the session: its state, the
// actions that change it and the resources it owns. They depend on this, not on the session class,
// so the session's files do not import each other in a circle.

import type { RunContext } from '../commands/context.js';
import type { CommandNode } from '../core/completion.js';
import type { ReplAction, ReplState } from '../core/repl/state.js';
import type { SandboxHandle, SandboxStatus } from '../sandbox/index.js';
import type { ReplClient } from './clients.js';
import type { ParsedLine } from './command-tree.js';
import type { CommandRun, RunOptions } from './commands.js';
import type { HoldJob } from '../core/repl/state.js';
import type { OutputTone } from './output.js';
import type { ReplTarget } from './target.js';

export type SessionState = ReplState<ReplTarget, SandboxStatus>;
export type SessionAction = ReplAction<ReplTarget, SandboxStatus>;

/** A scenario being stepped through (`step`), as the session holds it. */
export interface SteppedRun {
  /** Enter: runs the step the run waits at; false if it is not waiting. */
  next(): boolean;
  continueAll(): void;
  stop(): void;
  readonly done: Promise<void>;
  readonly scenario: string;
}

/** What a session is made with. */
export interface ReplOptions {
  /** The CLI's own run(argv, ctx): every command is dispatched through it. */
  readonly run: (argv: readonly string[], ctx: RunContext) => Promise<number>;
  readonly tree: CommandNode;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly target: ReplTarget;
  /** Clients that exist from the start (default A and B); the first is current. */
  readonly clients?: readonly string[] | undefined;
  readonly intervalMs?: number | undefined;
  readonly columns?: (() => number) | undefined;
  /** Lines typed in earlier sessions, oldest first. */
  readonly history?: readonly string[] | undefined;
  /** Called with every line worth keeping, to persist it. */
  readonly onHistory?: ((line: string) => void) | undefined;
}

export interface ReplHost {
  readonly tree: CommandNode;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly state: SessionState;
  dispatch(action: SessionAction): void;
  print(text: string, tone?: OutputTone): void;
  prompt(): string;
  columns(): number;
  /** A client by name, or a usage error naming the clients there are. */
  client(name: string): ReplClient;
  /** Creates a client (`use C`). */
  addClient(name: string): ReplClient;
  runForeground(
    client: ReplClient,
    argv: readonly string[],
    line: string,
    parsed: ParsedLine,
    opts?: RunOptions,
  ): Promise<CommandRun>;
  startJob(client: ReplClient, argv: readonly string[], line: string, hold?: HoldJob, opts?: RunOptions): number;
  /** Aborts a job like Ctrl-C would (a hold releases) and waits for it, at most `ms`. */
  stopJob(id: number, ms?: number): Promise<void>;
  /** Asks a question on the prompt line; resolves with the answer ('' for Ctrl-C). */
  ask(text: string): Promise<string>;
  /** Attaches a sandbox: its nodes join the panel and commands go to it. */
  attach(handle: SandboxHandle): void;
  readonly attachedSandbox: SandboxHandle | undefined;
  refreshPanel(): void;
  readonly stepRun: SteppedRun | undefined;
  setStepRun(run: SteppedRun | undefined): void;
  close(code?: number): Promise<void>;
}
