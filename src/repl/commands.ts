// How the REPL runs CLI commands: each through run(argv, ctx) with the client's connections and
// identity, its output turned into lines for the output area. One command in the foreground (the
// prompt waits, Ctrl-C aborts it, a second Ctrl-C stops waiting for it) and any number of
// background jobs, each with its own AbortController.

import type { RunContext } from '../commands/context.js';
import { ExitCode } from '../core/exit-codes.js';
import type { ReplClient } from './clients.js';
import type { ParsedLine } from './command-tree.js';
import { holdLine, type Job } from './jobs.js';
import { asTypedInRepl, isJsonResult } from '../core/repl/hints.js';
import { lineStream, type OutputTone } from './output.js';
import type { RunningView } from '../ui/repl-screen.js';

/** What the runner needs of the session. */
export interface RunnerHost {
  readonly run: (argv: readonly string[], ctx: RunContext) => Promise<number>;
  readonly env: Readonly<Record<string, string | undefined>>;
  columns(): number;
  print(text: string, tone?: OutputTone): void;
  /** Adds the client's name after each owner id of the REPL's clients ("…:1 (A)"). */
  nameOwners(text: string): string;
  publish(): void;
  refreshPanel(): void;
  /** A background job ended: what the clients hold may have changed. */
  afterJob(): void;
}

export interface Foreground {
  readonly controller: AbortController;
  readonly detach: () => void;
  view: RunningView;
  /** `acquire --wait`: the key the client waits for, for the panel. */
  readonly waitKey?: string | undefined;
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const PREFIX = 'redlock-cli: ';

/**
 * How a command's output line reads here: stderr lines that are our errors read as errors, without
 * the `redlock-cli: ` that tells them apart in a shell (here every line is ours), other stderr
 * lines are messages (hints, progress); suggested commands read as they are typed here, and the
 * REPL's own clients are named after their owner ids.
 */
function shown(raw: string, stream: 'stdout' | 'stderr', nameOwners: (text: string) => string): { text: string; tone: OutputTone } {
  const text = isJsonResult(raw, stream) ? raw : nameOwners(asTypedInRepl(raw, stream));
  if (stream === 'stdout') return { text, tone: 'result' };
  return text.startsWith(PREFIX) ? { text: text.slice(PREFIX.length), tone: 'error' } : { text, tone: 'message' };
}

export class CommandRunner {
  readonly jobs = new Map<number, Job>();
  foreground: Foreground | undefined;
  private nextJobId = 1;

  constructor(private readonly host: RunnerHost) {}

  /** A RunContext for one command of one client; each output line goes to `onLine`. */
  io(client: ReplClient, signal: AbortSignal, onLine: (text: string, stream: 'stdout' | 'stderr') => void) {
    const columns = (): number => this.host.columns();
    const stdout = lineStream((t) => onLine(t, 'stdout'), columns);
    const stderr = lineStream((t) => onLine(t, 'stderr'), columns);
    const ctx: RunContext = { stdout, stderr, env: this.host.env, signal, connections: client.pool, identity: client.identity };
    return { ctx, flush: () => (stdout.flush(), stderr.flush()) };
  }

  /** Runs argv in the foreground: the prompt waits, Ctrl-C aborts it. Returns the exit code, or undefined if left running. */
  async runForeground(client: ReplClient, argv: readonly string[], line: string, parsed: ParsedLine): Promise<number | undefined> {
    const controller = new AbortController();
    const io = this.io(client, controller.signal, (text, stream) => {
      const line = shown(text, stream, (t) => this.host.nameOwners(t));
      this.host.print(line.text, line.tone);
    });
    let detach!: () => void;
    const detached = new Promise<'detached'>((resolve) => (detach = () => resolve('detached')));
    const waits = parsed.path[0]?.name === 'acquire' && parsed.flags.has('--wait');
    const view = { line, client: client.name, since: Date.now(), cancelling: false };
    this.foreground = { controller, detach, view, waitKey: waits ? parsed.positionals[0] : undefined };
    this.host.publish();
    if (waits) this.host.refreshPanel();
    const done = this.host.run(argv, io.ctx).finally(io.flush);
    const outcome = await Promise.race([done, detached]);
    this.foreground = undefined;
    this.host.publish();
    if (outcome === 'detached') {
      const job = this.addJob({ id: this.nextJobId, client: client.name, line, since: Date.now(), controller, done });
      this.host.print(`still running: left in the background as %${job.id}; its output keeps coming here`);
      return undefined;
    }
    // The exit code says what a script would get (5: not acquired, 130: interrupted); a usage
    // error's 2 says nothing its error line did not, like the REPL's own usage errors.
    if (outcome !== 0 && outcome !== ExitCode.usage) this.host.print(`exit ${outcome}`);
    return outcome;
  }

  /** Ctrl-C for the foreground command: the first aborts it, the second stops waiting for it. */
  interrupt(): 'aborted' | 'detached' | 'none' {
    const fg = this.foreground;
    if (!fg) return 'none';
    if (fg.view.cancelling) {
      fg.detach();
      return 'detached';
    }
    fg.controller.abort();
    fg.view = { ...fg.view, cancelling: true };
    return 'aborted';
  }

  /** Starts argv in the background; a hold's NDJSON events are folded into its state and printed in words. */
  startJob(client: ReplClient, argv: readonly string[], line: string, hold?: Job['hold']): Job {
    const controller = new AbortController();
    const id = this.nextJobId;
    const job: Job = { id, client: client.name, line, since: Date.now(), controller, done: Promise.resolve(0), hold };
    const io = this.io(client, controller.signal, (text, stream) => {
      const line = shown(text, stream, (t) => this.host.nameOwners(t));
      const words = job.hold ? holdLine(job as Job & { hold: NonNullable<Job['hold']> }, line.text) : line.text;
      if (job.hold) {
        this.host.publish();
        this.host.refreshPanel();
      }
      if (words !== undefined) this.host.print(`[%${id} ${client.name}] ${words}`, line.tone);
    });
    job.done = this.host.run(argv, io.ctx).finally(io.flush);
    this.addJob(job);
    this.host.print(`[%${id}] ${client.name}: ${line} (in the background: cancel %${id} stops it)`);
    return job;
  }

  /** Registers a job; when it ends it is removed and the session is told. */
  private addJob(job: Job): Job {
    this.nextJobId = Math.max(this.nextJobId, job.id + 1);
    const { id, line } = job;
    job.done = job.done.then(
      (code) => {
        this.jobs.delete(id);
        this.host.print(`[%${id}] done${code !== 0 ? `, exit ${code}` : ''}: ${line}`);
        this.host.afterJob();
        return code;
      },
      (err: unknown) => {
        this.jobs.delete(id);
        this.host.print(`[%${id}] failed: ${errorText(err)}`, 'error');
        return 1;
      },
    );
    this.jobs.set(id, job);
    this.host.publish();
    return job;
  }

  /** Aborts a job like Ctrl-C would (a hold releases) and waits for it, at most `ms`. */
  async stopJob(job: Job, ms = 5000): Promise<void> {
    job.controller.abort();
    await Promise.race([job.done, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
  }
}
