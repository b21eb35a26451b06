// The REPL without its screen: clients, target, the line queue, foreground and background commands,
// the panel's reads and what the clients hold. The ink view subscribes to its snapshot and feeds
// it key presses as lines, Ctrl-C and Ctrl-D; tests can drive it the same way.

import type { RunContext } from '../commands/context.js';
import { UsageError } from '../core/errors.js';
import { parseInspectKind } from '../core/decode/index.js';
import type { InspectKind } from '../core/lock-view.js';
import type { CommandNode } from '../core/completion.js';
import type { SandboxHandle } from '../sandbox/index.js';
import { createClient, nameOwners, type ReplClient } from './clients.js';
import type { ParsedLine } from './command-tree.js';
import { completeLine } from './completion.js';
import { execute } from './execute.js';
import { acquiredLocks, stillHeld, type HeldLock, type Waiting } from './held.js';
import { CommandRunner } from './commands.js';
import { jobLocks, type Job } from './jobs.js';
import { LineQueue } from './line-queue.js';
import { LivePanel } from './live-panel.js';
import type { OutputLine, OutputTone } from './output.js';
import type { ReplScreen } from './screen.js';
import type { StepRun } from './step.js';
import { ownerMemoryNames, sandboxTarget, type ReplTarget } from './target.js';

export type { ReplScreen } from './screen.js';

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

export const DEFAULT_CLIENTS = ['A', 'B'] as const;


export class ReplSession {
  readonly clients = new Map<string, ReplClient>();
  readonly tree: CommandNode;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves with the exit code once the REPL has ended and closed everything. */
  readonly finished: Promise<number>;
  current: string;
  target: ReplTarget;
  watched: string[] = [];
  /** Sandboxes `sandbox up` started in this session: `exit` offers to stop them. */
  readonly startedSandboxes = new Set<string>();
  /** Targets used in this session by the name the owner memory gives them, to release there at exit. */
  readonly knownTargets = new Map<string, ReplTarget>();
  history: string[];
  acquired: HeldLock[] = [];
  /** Keys to read as a given kind (their data alone does not say: a token lock is a plain string). */
  readonly kindHints = new Map<string, InspectKind>();
  /** A scenario being stepped through (`step`): Enter runs its next step. */
  stepRun: StepRun | undefined;
  /** The target before a sandbox was attached: where commands go again once it is down. */
  beforeAttach: ReplTarget | undefined;

  private readonly listeners = new Set<() => void>();
  private output: OutputLine[] = [];
  private nextLineId = 0;
  private readonly lines: LineQueue;
  private readonly commands: CommandRunner;
  private readonly live: LivePanel;
  private ended = false;
  private screen: ReplScreen;
  private publishScheduled = false;
  private finish!: (code: number) => void;

  constructor(private readonly options: ReplOptions) {
    this.tree = options.tree;
    this.env = options.env;
    this.target = options.target;
    this.history = [...(options.history ?? [])];
    for (const name of options.clients ?? DEFAULT_CLIENTS) this.clients.set(name, createClient(name));
    this.current = [...this.clients.keys()][0]!;
    this.live = new LivePanel({
      intervalMs: options.intervalMs ?? 1000,
      keys: () => this.panelKeys(),
      kindOf: (key) => this.kindOf(key),
      onChange: () => this.publish(),
      onLine: (text) => this.print(nameOwners(text, this.clients.values()), 'event'),
    });
    this.commands = new CommandRunner({
      run: options.run,
      env: this.env,
      columns: () => this.columns(),
      print: (text, tone) => this.print(text, tone),
      nameOwners: (text) => nameOwners(text, this.clients.values()),
      publish: () => this.publish(),
      refreshPanel: () => this.live.refresh(),
      afterJob: () => this.afterLocksChanged(),
    });
    this.lines = new LineQueue({
      execute: (line) => execute(this, line),
      print: (text, tone) => this.print(text, tone),
      publish: () => this.publish(),
      ended: () => this.ended,
    });
    this.finished = new Promise((resolve) => (this.finish = resolve));
    this.rememberTarget(this.target);
    this.screen = this.build();
  }

  /** Background commands by id. */
  get jobs(): ReadonlyMap<number, Job> {
    return this.commands.jobs;
  }

  /** Starts the panel (reading only once there is something to read) and loads what the clients hold. */
  start(): void {
    this.live.retarget(this.target.spec, this.target.label);
    this.reloadAcquired();
  }

  // ---- the screen ----

  getSnapshot = (): ReplScreen => this.screen;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

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
    return `${this.current}@${this.target.label}> `;
  }

  print(text: string, tone: OutputTone = 'repl'): void {
    this.output = [...this.output, { id: this.nextLineId++, text, tone }];
    this.publish();
  }

  private build(): ReplScreen {
    const { held, waiting } = this.locks();
    return {
      output: this.output,
      prompt: this.prompt(),
      client: this.current,
      clients: [...this.clients.keys()],
      target: this.target.label,
      running: this.commands.foreground?.view,
      queued: this.lines.queued,
      question: this.lines.asking,
      panel: this.live.state,
      held,
      heldElsewhere: this.heldElsewhere(),
      waiting,
      jobs: [...this.jobs.values()].map(({ id, client, line, since }) => ({ id, client, line, since })),
      sandbox: this.live.sandboxView,
      stepping: this.stepRun?.view,
      ended: this.ended,
    };
  }

  /** What the clients hold on the current target as far as Redis last said, and who waits. */
  locks(): { held: HeldLock[]; waiting: Waiting[] } {
    const fromJobs = jobLocks(this.jobs.values());
    const here = ownerMemoryNames(this.target);
    const acquired = this.acquired.filter((l) => l.target === undefined || here.includes(l.target)).map((l) => ({ ...l, where: this.target.label }));
    const jobsHere = fromJobs.held.filter((l) => l.target === undefined || here.includes(l.target));
    const held = [...stillHeld(acquired, this.live.state.views, this.live.state.readAt), ...jobsHere];
    const fg = this.commands.foreground;
    const waiting = fg?.waitKey !== undefined ? [...fromJobs.waiting, { client: fg.view.client, key: fg.waitKey, where: this.target.label }] : fromJobs.waiting;
    return { held, waiting };
  }

  /** What `acquire` left on other targets of this session: named by where they live, never read from this one. */
  heldElsewhere(): HeldLock[] {
    const here = ownerMemoryNames(this.target);
    return [...this.acquired, ...jobLocks(this.jobs.values()).held]
      .filter((l) => l.target !== undefined && !here.includes(l.target))
      .map((l) => ({ ...l, where: l.where ?? this.knownTargets.get(l.target!)?.label ?? l.target }));
  }

  /** How the panel reads a key: as asked (`watch --kind`, a stepped scenario's lock), else as our clients hold it. */
  kindOf(key: string): InspectKind | undefined {
    const hinted = this.kindHints.get(key);
    if (hinted) return hinted;
    const held = this.locks().held.find((h) => h.key === key);
    return held ? parseInspectKind(held.kind) : undefined;
  }

  /** Keys the panel reads each tick: watched ones first, then held and waited-for ones. */
  panelKeys(): string[] {
    const { held, waiting } = this.locks();
    return [...new Set([...this.watched, ...held.map((h) => h.key), ...waiting.map((w) => w.key)])];
  }

  // ---- input ----

  /** Tab: the candidates for the word before the cursor. */
  complete(beforeCursor: string): string[] {
    return completeLine(this, beforeCursor);
  }

  /** A line typed at the prompt (or the answer to a question). Lines typed while a command runs wait their turn. */
  submit(line: string): void {
    if (this.ended || this.lines.answer(line)) return;
    // Stepping through a scenario, Enter on an empty line runs its next step.
    if (this.stepRun && line.trim() === '' && this.stepRun.next()) return;
    if (line.trim() !== '') {
      const last = this.history[this.history.length - 1];
      if (last !== line.trim()) {
        this.history = [...this.history, line.trim()].slice(-500);
        this.options.onHistory?.(line.trim());
      }
    }
    this.lines.enqueue(line);
  }

  /**
   * Ctrl-C: answers a question with "no", cancels the running command (a second Ctrl-C stops
   * waiting for it), or returns false when there is nothing to interrupt (the prompt clears its line).
   */
  interrupt(): boolean {
    if (this.lines.cancelQuestion()) return true;
    const fg = this.commands.foreground;
    if (!fg && this.stepRun) {
      this.print('^C: stopping the scenario run');
      this.stepRun.stop();
      return true;
    }
    if (!fg) return false;
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

  /** Asks a question on the prompt line; resolves with the answer ('' for Ctrl-C). */
  ask(text: string): Promise<string> {
    return this.lines.ask(text);
  }

  // ---- running commands ----

  client(name: string): ReplClient {
    const client = this.clients.get(name);
    if (!client) {
      throw new UsageError(`no client "${name}": clients are ${[...this.clients.keys()].join(', ')}; create one with: use ${name}`);
    }
    return client;
  }

  /** Runs argv in the foreground: the prompt waits, Ctrl-C aborts it. Returns the exit code, or undefined if left running. */
  runForeground(client: ReplClient, argv: readonly string[], line: string, parsed: ParsedLine): Promise<number | undefined> {
    return this.commands.runForeground(client, argv, line, parsed);
  }

  /** Starts argv in the background (`hold`, a line ending in &). */
  startJob(client: ReplClient, argv: readonly string[], line: string, hold?: Job['hold']): Job {
    return this.commands.startJob(client, argv, line, hold);
  }

  /** Aborts a job like Ctrl-C would (a hold releases) and waits for it, at most `ms`. */
  stopJob(job: Job, ms?: number): Promise<void> {
    return this.commands.stopJob(job, ms);
  }

  // ---- what is held, the panel, the target ----

  /** Reloads what `acquire` left held by our clients (the owner memory) and reads the panel now. */
  afterLocksChanged(): void {
    this.reloadAcquired();
    this.live.refresh();
    this.publish();
  }

  private reloadAcquired(): void {
    const identities = new Map([...this.clients].map(([name, c]) => [name, c.identity]));
    this.acquired = acquiredLocks(this.env, identities);
  }

  private rememberTarget(target: ReplTarget): void {
    for (const name of ownerMemoryNames(target)) this.knownTargets.set(name, target);
  }

  setTarget(target: ReplTarget): void {
    this.target = target;
    this.rememberTarget(target);
    this.live.retarget(target.spec, target.label);
    this.publish();
  }

  /** Attaches a sandbox: its nodes join the panel and commands go to it. */
  attach(handle: SandboxHandle): void {
    this.live.attach(handle);
    this.setTarget(sandboxTarget(handle));
  }

  /** Stops showing the sandbox (it keeps running); the target is left to the caller. */
  detachSandbox(): void {
    this.live.detach();
  }

  get attachedSandbox(): SandboxHandle | undefined {
    return this.live.attached;
  }

  watch(keys: readonly string[]): void {
    this.watched = [...new Set([...this.watched, ...keys])];
    this.live.setWatched(this.watched);
  }

  unwatch(keys: readonly string[]): void {
    this.watched = keys.length === 0 ? [] : this.watched.filter((k) => !keys.includes(k));
    this.live.setWatched(this.watched);
  }

  refreshPanel(): void {
    this.live.refresh();
  }

  // ---- the end ----

  /** Closes everything the session opened and resolves `finished`. */
  async close(code = 0): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.lines.drop();
    for (const job of this.commands.jobs.values()) job.controller.abort();
    this.stepRun?.stop();
    await this.stepRun?.done;
    await Promise.race([Promise.all([...this.commands.jobs.values()].map((j) => j.done)), new Promise((r) => setTimeout(r, 3000).unref())]);
    await this.live.close();
    await Promise.all([...this.clients.values()].map((c) => c.pool.closeAll()));
    this.screen = this.build();
    for (const listener of this.listeners) listener();
    this.finish(code);
  }
}
