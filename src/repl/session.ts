// The REPL without its screen. Its state is one value (core/repl/state.ts) changed only by
// dispatching actions through the pure reducer; this class owns what cannot be a value (the
// clients' connections, the pollers, the commands' abort controllers, the line queue) and keeps
// them in step with the state. The ink view subscribes to its snapshot and feeds it lines,
// Ctrl-C and Ctrl-D; tests drive it the same way.

import type { CommandNode } from '../core/completion.js';
import { UsageError } from '../core/errors.js';
import type { CommandOutcome } from '../core/outcomes.js';
import { kindOf, panelKeys } from '../core/repl/selectors.js';
import { initialReplState, nameOwners, replReducer } from '../core/repl/state.js';
import type { SandboxHandle } from '../sandbox/index.js';
import type { ReplScreen } from '../ui/repl-screen.js';
import { clientState, createClient, type ReplClient } from './clients.js';
import { CommandRunner } from './commands.js';
import { completeLine } from './completion.js';
import { execute } from './execute.js';
import { holdEventLine } from './hold-words.js';
import type { ReplHost, ReplOptions, SessionAction, SessionState, SteppedRun } from './host.js';
import { LineQueue } from './line-queue.js';
import { LivePanel } from './live-panel.js';
import type { OutputTone } from './output.js';
import { promptOf, screenOf } from './screen.js';
import { placed, sandboxTarget } from './target.js';

export type { ReplOptions } from './host.js';
export type { ReplScreen } from '../ui/repl-screen.js';

export const DEFAULT_CLIENTS = ['A', 'B'] as const;

export class ReplSession implements ReplHost {
  readonly tree: CommandNode;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves with the exit code once the REPL has ended and closed everything. */
  readonly finished: Promise<number>;
  private current: SessionState;
  private readonly clients = new Map<string, ReplClient>();
  private readonly listeners = new Set<() => void>();
  private readonly lines: LineQueue;
  private readonly commands: CommandRunner;
  private readonly live: LivePanel;
  private screen: ReplScreen;
  private publishScheduled = false;
  private step: SteppedRun | undefined;
  private finish!: (code: number) => void;

  constructor(private readonly options: ReplOptions) {
    this.tree = options.tree;
    this.env = options.env;
    for (const name of options.clients ?? DEFAULT_CLIENTS) this.clients.set(name, createClient(name));
    const clients = [...this.clients.values()].map(clientState);
    this.current = initialReplState({
      clients,
      target: placed(options.target),
      intervalMs: options.intervalMs ?? 1000,
      history: options.history,
    });
    this.live = new LivePanel({
      intervalMs: options.intervalMs ?? 1000,
      keys: () => panelKeys(this.current),
      kindOf: (key) => kindOf(this.current, key),
      onPoll: (poll) => this.dispatch({ type: 'polled', poll }),
      onConnection: (down) => this.dispatch({ type: 'panel-connection', down }),
      onSandboxPoll: (poll) => this.dispatch({ type: 'sandbox-polled', poll }),
    });
    this.commands = new CommandRunner({
      run: options.run,
      env: this.env,
      columns: () => this.columns(),
      print: (text, tone) => this.print(text, tone),
      nameOwners: (text) => nameOwners(text, this.current.clients),
      outcome: (client, outcome, jobId) => this.outcome(client, outcome, jobId),
      running: (running) =>
        this.dispatch(running === 'cancelling' ? { type: 'cancelling' } : { type: 'running', running }),
      jobStarted: (job) => this.dispatch({ type: 'job-started', job }),
      jobEnded: (id) => {
        this.dispatch({ type: 'job-ended', id });
        this.live.refresh();
      },
      refreshPanel: () => this.live.refresh(),
    });
    this.lines = new LineQueue({
      execute: (line) => execute(this, line),
      print: (text, tone) => this.print(text, tone),
      lineStarted: () => this.dispatch({ type: 'line-started' }),
      lineDone: () => this.dispatch({ type: 'line-done' }),
      publish: () => this.publish(),
      ended: () => this.current.ended,
    });
    this.finished = new Promise((resolve) => (this.finish = resolve));
    this.screen = this.build();
  }

  /** The session as it is now: one immutable value. */
  get state(): SessionState {
    return this.current;
  }

  /** Changes the state through the reducer, then brings the pollers in line with it. */
  dispatch(action: SessionAction): void {
    const before = this.current;
    this.current = replReducer(before, action);
    if (this.current.target !== before.target) this.live.retarget(this.current.target.target.spec);
    if (!this.current.sandbox && before.sandbox) this.live.detach();
    if (this.current !== before) this.publish();
  }

  /** Starts the panel (reading only once there is something to read). */
  start(): void {
    this.live.retarget(this.current.target.target.spec);
  }

  // ---- the screen ----

  readonly getSnapshot = (): ReplScreen => this.screen;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  get history(): readonly string[] {
    return this.current.history;
  }

  /** Rebuilds the snapshot soon: many lines printed in one go cost one repaint. */
  publish(): void {
    if (this.publishScheduled) return;
    this.publishScheduled = true;
    setImmediate(() => {
      this.publishScheduled = false;
      this.screen = this.build();
      for (const listener of this.listeners) listener();
    });
  }

  columns(): number {
    return this.options.columns?.() ?? 80;
  }

  prompt(): string {
    return promptOf(this.current);
  }

  print(text: string, tone: OutputTone = 'repl'): void {
    this.dispatch({ type: 'print', text, tone });
  }

  private build(): ReplScreen {
    return screenOf(this.current, { queued: this.lines.queued, question: this.lines.asking });
  }

  /** Keys the panel reads each tick. */
  panelKeys(): string[] {
    return panelKeys(this.current);
  }

  // ---- input ----

  /** Tab: the candidates for the word before the cursor. */
  complete(beforeCursor: string): string[] {
    return completeLine(this, beforeCursor);
  }

  /** A line typed at the prompt (or the answer to a question). Lines typed while a command runs wait their turn. */
  submit(line: string): void {
    if (this.current.ended || this.lines.answer(line)) return;
    // Stepping through a scenario, Enter on an empty line runs its next step.
    if (this.step && line.trim() === '' && this.step.next()) return;
    const before = this.current.history;
    this.dispatch({ type: 'history', line });
    if (this.current.history !== before) this.options.onHistory?.(line.trim());
    this.lines.enqueue(line);
  }

  /**
   * Ctrl-C: answers a question with "no", cancels the running command (a second Ctrl-C stops
   * waiting for it), or returns false when there is nothing to interrupt (the prompt clears its line).
   */
  interrupt(): boolean {
    if (this.lines.cancelQuestion()) return true;
    if (!this.current.running && this.step) {
      this.print('^C: stopping the scenario run');
      this.step.stop();
      return true;
    }
    if (!this.current.running) return false;
    if (this.commands.interrupt() === 'aborted') {
      const dropped = this.lines.drop();
      if (dropped > 0) this.print(`^C: dropped ${dropped} line(s) typed ahead`);
    }
    this.publish();
    return true;
  }

  /** Ctrl-D on an empty line: leave like `exit`. */
  eof(): void {
    if (this.lines.cancelQuestion()) return;
    this.submit('exit');
  }

  ask(text: string): Promise<string> {
    return this.lines.ask(text);
  }

  // ---- clients and commands ----

  client(name: string): ReplClient {
    const client = this.clients.get(name);
    if (!client) {
      throw new UsageError(
        `no client "${name}": clients are ${[...this.clients.keys()].join(', ')}; create one with: use ${name}`,
      );
    }
    return client;
  }

  addClient(name: string): ReplClient {
    const created = createClient(name);
    this.clients.set(name, created);
    this.dispatch({ type: 'client-added', client: clientState(created) });
    return created;
  }

  readonly runForeground: ReplHost['runForeground'] = (...args) => this.commands.runForeground(...args);

  readonly startJob: ReplHost['startJob'] = (...args) => this.commands.startJob(...args);

  stopJob(id: number, ms?: number): Promise<void> {
    return this.commands.stopJob(id, ms);
  }

  /** Folds what a command did into the state; a background hold's events are also said in words. */
  private outcome(client: string, outcome: CommandOutcome, jobId?: number): void {
    this.dispatch({ type: 'outcome', client, jobId, outcome });
    this.live.refresh();
    const line = holdEventLine(this.current, client, outcome, jobId);
    if (line !== undefined) this.print(line, 'result');
  }

  // ---- the panel, the sandbox, a stepped scenario ----

  attach(handle: SandboxHandle): void {
    this.live.attach(handle);
    this.dispatch({ type: 'sandbox-attached', name: handle.name, to: placed(sandboxTarget(handle)) });
  }

  get attachedSandbox(): SandboxHandle | undefined {
    return this.current.sandbox ? this.live.attached : undefined;
  }

  watch(keys: readonly string[]): void {
    this.dispatch({ type: 'watched', keys });
    this.live.refresh();
  }

  refreshPanel(): void {
    this.live.refresh();
  }

  get stepRun(): SteppedRun | undefined {
    return this.step;
  }

  setStepRun(run: SteppedRun | undefined): void {
    this.step = run;
  }

  // ---- the end ----

  /** Closes everything the session opened and resolves `finished`. */
  async close(code = 0): Promise<void> {
    if (this.current.ended) return;
    this.dispatch({ type: 'ended' });
    this.lines.drop();
    const jobs = this.commands.stopAll(3000);
    this.step?.stop();
    await this.step?.done;
    await jobs;
    await this.live.close();
    await Promise.all([...this.clients.values()].map((c) => c.pool.closeAll()));
    this.screen = this.build();
    for (const listener of this.listeners) listener();
    this.finish(code);
  }
}
