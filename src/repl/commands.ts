// How the REPL runs CLI commands: each through run(argv, ctx) with the client's connections and
// identity, its output turned into lines for the output area and what it did (typed outcomes)
// handed to the session. One command in the foreground (the prompt waits, Ctrl-C aborts it, a
// second Ctrl-C stops waiting for it) and any number of background jobs, each with its own
// AbortController. What shows on screen is in the session's state; the controllers are kept here.

import type { RunContext } from '../commands/context.js';
import { ExitCode } from '../core/exit-codes.js';
import type { CommandOutcome } from '../core/outcomes.js';
import { asTypedInRepl, isJsonResult } from '../core/repl/hints.js';
import type { HoldJob, JobState, Running } from '../core/repl/state.js';
import type { ReplClient } from './clients.js';
import type { ParsedLine } from './command-tree.js';
import { lineStream, type OutputTone } from './output.js';
import { hostTarget, type ReplTarget } from './target.js';

/** What the runner needs of the session. */
export interface RunnerHost {
  readonly run: (argv: readonly string[], ctx: RunContext) => Promise<number>;
  readonly env: Readonly<Record<string, string | undefined>>;
  columns(): number;
  print(text: string, tone?: OutputTone): void;
  /** Adds the client's name after each owner id of the REPL's clients ("…:1 (A)"). */
  nameOwners(text: string): string;
  /** What a command did; `jobId`: a background job's. */
  outcome(client: string, outcome: CommandOutcome, jobId?: number): void;
  /** The foreground command started, was Ctrl-C'd, or ended (undefined). */
  running(running: Running | 'cancelling' | undefined): void;
  jobStarted(job: JobState): void;
  /** A background job ended: it leaves the screen. */
  jobEnded(id: number): void;
  refreshPanel(): void;
}

/** A foreground command's end: its exit code (undefined: left running in the background) and what it did. */
export interface CommandRun {
  readonly code: number | undefined;
  readonly outcomes: readonly CommandOutcome[];
}

interface Controlled {
  readonly controller: AbortController;
  done: Promise<number>;
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const PREFIX = 'redlock-cli: ';

/**
 * How a command's output line reads here: stderr lines that are our errors read as errors, without
 * the `redlock-cli: ` that tells them apart in a shell (here every line is ours), other stderr
 * lines are messages (hints, progress); suggested commands read as they are typed here, and the
 * REPL's own clients are named after their owner ids.
 */
function shown(
  raw: string,
  stream: 'stdout' | 'stderr',
  nameOwners: (text: string) => string,
): { text: string; tone: OutputTone } {
  const text = isJsonResult(raw, stream) ? raw : nameOwners(asTypedInRepl(raw, stream));
  if (stream === 'stdout') return { text, tone: 'result' };
  return text.startsWith(PREFIX) ? { text: text.slice(PREFIX.length), tone: 'error' } : { text, tone: 'message' };
}

/** How the REPL runs one command line: its connection options, and whether it shows hold's events itself. */
export interface RunOptions {
  /** Where the command connects unless its line says otherwise (the REPL's target). */
  readonly target?: ReplTarget | undefined;
  readonly showsHoldEvents?: boolean | undefined;
}

export class CommandRunner {
  private readonly jobs = new Map<number, Controlled>();
  private foreground: { controller: AbortController; detach: () => void; cancelling: boolean } | undefined;
  private nextJobId = 1;

  constructor(private readonly host: RunnerHost) {}

  /** A RunContext for one command of one client; each output line goes to `onLine`, each outcome to `onOutcome`. */
  private io(
    client: ReplClient,
    signal: AbortSignal,
    opts: RunOptions,
    onLine: (text: string, stream: 'stdout' | 'stderr') => void,
    onOutcome: (o: CommandOutcome) => void,
  ) {
    const columns = (): number => this.host.columns();
    const stdout = lineStream((t) => onLine(t, 'stdout'), columns);
    const stderr = lineStream((t) => onLine(t, 'stderr'), columns);
    const ctx: RunContext = {
      stdout,
      stderr,
      env: this.host.env,
      signal,
      connections: client.pool,
      identity: client.identity,
      emit: onOutcome,
      target: opts.target ? hostTarget(opts.target) : undefined,
      hostShowsHoldEvents: opts.showsHoldEvents,
    };
    return { ctx, flush: () => (stdout.flush(), stderr.flush()) };
  }

  private printLine(text: string, stream: 'stdout' | 'stderr', prefix = ''): void {
    const line = shown(text, stream, (t) => this.host.nameOwners(t));
    this.host.print(`${prefix}${line.text}`, line.tone);
  }

  /** Runs argv in the foreground: the prompt waits, Ctrl-C aborts it. */
  async runForeground(
    client: ReplClient,
    argv: readonly string[],
    line: string,
    parsed: ParsedLine,
    opts: RunOptions = {},
  ): Promise<CommandRun> {
    const controller = new AbortController();
    const outcomes: CommandOutcome[] = [];
    const io = this.io(
      client,
      controller.signal,
      opts,
      (text, stream) => this.printLine(text, stream),
      (o) => {
        outcomes.push(o);
        this.host.outcome(client.name, o);
      },
    );
    let detach!: () => void;
    const detached = new Promise<'detached'>((resolve) => (detach = () => resolve('detached')));
    const waits = parsed.path[0]?.name === 'acquire' && parsed.flags.has('--wait');
    this.foreground = { controller, detach, cancelling: false };
    const view = { line, client: client.name, since: Date.now(), cancelling: false };
    this.host.running({ view, waitKey: waits ? parsed.positionals[0] : undefined });
    if (waits) this.host.refreshPanel();
    const done = this.host.run(argv, io.ctx).finally(io.flush);
    const code = await Promise.race([done, detached]);
    this.foreground = undefined;
    this.host.running(undefined);
    if (code === 'detached') {
      const id = this.addJob(client.name, line, { controller, done });
      this.host.print(`still running: left in the background as %${id}; its output keeps coming here`);
      return { code: undefined, outcomes };
    }
    // The exit code says what a script would get (5: not acquired, 130: interrupted); a usage
    // error's 2 says nothing its error line did not, like the REPL's own usage errors.
    if (code !== 0 && code !== ExitCode.usage) this.host.print(`exit ${code}`);
    return { code, outcomes };
  }

  /** Ctrl-C for the foreground command: the first aborts it, the second stops waiting for it. */
  interrupt(): 'aborted' | 'detached' | 'none' {
    const fg = this.foreground;
    if (!fg) return 'none';
    if (fg.cancelling) {
      fg.detach();
      return 'detached';
    }
    fg.controller.abort();
    fg.cancelling = true;
    this.host.running('cancelling');
    return 'aborted';
  }

  /** Starts argv in the background; a hold's events reach the session as outcomes, with the job's id. */
  startJob(client: ReplClient, argv: readonly string[], line: string, hold?: HoldJob, opts: RunOptions = {}): number {
    const controller = new AbortController();
    const id = this.nextJobId;
    const io = this.io(
      client,
      controller.signal,
      opts,
      (text, stream) => this.printLine(text, stream, `[%${id} ${client.name}] `),
      (o) => this.host.outcome(client.name, o, id),
    );
    this.addJob(client.name, line, { controller, done: this.host.run(argv, io.ctx).finally(io.flush) }, hold);
    this.host.print(`[%${id}] ${client.name}: ${line} (in the background: cancel %${id} stops it)`);
    return id;
  }

  /** Registers a job; when it ends it is removed and the session is told. */
  private addJob(client: string, line: string, job: Controlled, hold?: HoldJob): number {
    const id = this.nextJobId++;
    job.done = job.done.then(
      (code) => {
        this.jobs.delete(id);
        this.host.print(`[%${id}] done${code !== 0 ? `, exit ${code}` : ''}: ${line}`);
        this.host.jobEnded(id);
        return code;
      },
      (err: unknown) => {
        this.jobs.delete(id);
        this.host.print(`[%${id}] failed: ${errorText(err)}`, 'error');
        this.host.jobEnded(id);
        return 1;
      },
    );
    this.jobs.set(id, job);
    this.host.jobStarted({ id, client, line, since: Date.now(), hold });
    return id;
  }

  /** Aborts a job like Ctrl-C would (a hold releases) and waits for it, at most `ms`. */
  async stopJob(id: number, ms = 5000): Promise<void> {
    const job = this.jobs.get(id);
    if (!job) return;
    job.controller.abort();
    await Promise.race([job.done, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
  }

  /** Aborts every job and waits for them, at most `ms`. */
  async stopAll(ms: number): Promise<void> {
    for (const job of this.jobs.values()) job.controller.abort();
    await Promise.race([
      Promise.all([...this.jobs.values()].map((j) => j.done)),
      new Promise((r) => setTimeout(r, ms).unref()),
    ]);
  }
}
