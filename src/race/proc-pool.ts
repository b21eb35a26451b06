// --procs: race clients spread over worker processes we fork and own. Their history events come
// back over IPC; the demo resource stays here and answers their requests. Pause and kill act on
// a worker's pid with real signals (SIGSTOP / SIGCONT / SIGKILL), only ever on our own children.

import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CliError } from '../core/errors.js';
import { ExitCode, type ExitCodeValue } from '../core/exit-codes.js';
import { compiledPath } from '../core/compiled-path.js';
import type { HistoryEvent } from '../core/scenario/history.js';
import type { FromWorker, ResourceRequest, ToWorker, WorkerConfig, WorkerLoad } from './ipc.js';
import type { ClientSpec } from './local-pool.js';
import type { Recorder } from './recorder.js';
import { sleep } from '../core/sleep.js';

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

/** The compiled worker: next to us in dist/, or dist/race/worker.js when we run from source (tests). */
export function workerPath(): string {
  const path = compiledPath(import.meta.url, './worker.js', '../../dist/race/worker.js');
  if (!existsSync(path)) throw new CliError(`the race worker ${path} is missing: build first (npm run build)`, ExitCode.unexpected);
  return path;
}

interface Worker {
  readonly child: ChildProcess;
  readonly index: number;
  readonly clients: readonly ClientSpec[];
  /** Settles when the process has exited. */
  readonly exited: Promise<void>;
  load?: WorkerLoad;
  stopped: boolean;
  killed: boolean;
  paused: boolean;
}

/** Starts one worker process; tests pass one that fails the way a fork does (see ProcPoolOptions.spawnWorker). */
export type SpawnWorker = (path: string) => ChildProcess;

// No inherited execArgv: a test runner's loader flags would slow every worker down.
const forkWorker: SpawnWorker = (path) => fork(path, [], { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });

export interface ProcPoolOptions {
  readonly config: Omit<WorkerConfig, 'clients' | 'index'>;
  readonly emit: (event: HistoryEvent) => void;
  readonly resource: (req: ResourceRequest) => number | boolean;
  /** The parent's recorder, for the crash events of a killed worker's clients. */
  readonly rec: Recorder;
  /** How a worker is started (default: fork dist/race/worker.js). */
  readonly spawnWorker?: SpawnWorker;
}

/**
 * Sends to a worker unless its channel is closed. A worker SIGKILLed by --chaos kill-holder after
 * sending a request still looks connected for a moment, and the reply then fails with EPIPE. Node
 * emits a failed send as an 'error' event on the child unless send has a callback, and nothing
 * listens for that event, so it ended the whole race. With the callback the error is dropped:
 * the worker's clients are recorded as crashed when it exits.
 */
export function sendToWorker(child: Pick<ChildProcess, 'connected' | 'send'>, msg: ToWorker): void {
  if (child.connected) child.send(msg, () => undefined);
}

export class ProcPool {
  private readonly workers: Worker[] = [];
  private nextIndex = 1;
  private origin: string | undefined;

  constructor(private readonly opts: ProcPoolOptions) {}

  /**
   * Forks one worker per group and waits until every client of every worker is connected. Any
   * failure (a fork the system refuses, a worker that cannot connect) kills every worker started.
   */
  async start(groups: readonly (readonly ClientSpec[])[]): Promise<void> {
    const started: Promise<Worker>[] = [];
    try {
      const path = workerPath();
      // A fork can also fail synchronously (ENOMEM): the workers already forked are killed too.
      for (const clients of groups) started.push(this.spawn(path, clients, groups.length));
      await Promise.all(started);
    } catch (err) {
      // Every other start now fails too (killed while connecting): that is this error, not another.
      const settled = Promise.allSettled(started);
      await this.killAll();
      await settled;
      throw err;
    }
  }

  private spawn(path: string, clients: readonly ClientSpec[], of = 1): Promise<Worker> {
    const index = this.nextIndex++;
    const cannot = (err: unknown): CliError =>
      new CliError(`could not start race worker ${index} of ${of} (${err instanceof Error ? err.message : String(err)}): use fewer --procs, or none`, ExitCode.unexpected);
    let child: ChildProcess;
    try {
      child = (this.opts.spawnWorker ?? forkWorker)(path);
    } catch (err) {
      throw cannot(err);
    }
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-2000)));
    // A fork the system refused (EAGAIN, EMFILE) emits 'error' and never 'exit': it has exited all the same.
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.on('error', () => void (child.pid === undefined && resolve()));
    });
    const worker: Worker = { child, index, clients, exited, stopped: false, killed: false, paused: false };
    this.workers.push(worker);
    return new Promise<Worker>((resolve, reject) => {
      const timer = setTimeout(() => fail(`worker ${child.pid} did not connect its ${clients.length} clients within ${READY_TIMEOUT_MS / 1000} s`), READY_TIMEOUT_MS);
      const fail = (message: string, code: ExitCodeValue = ExitCode.unexpected): void => {
        clearTimeout(timer);
        reject(new CliError(message, code));
      };
      child.once('exit', (code, signal) => fail(`worker ${child.pid} exited (${signal ?? `code ${code}`}) while connecting: ${stderr.trim() || 'no output'}`));
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(cannot(err));
      });
      child.on('message', (msg: FromWorker) => {
        if (msg.type === 'ready') {
          clearTimeout(timer);
          resolve(worker);
        } else if (msg.type === 'failed') fail(msg.message, msg.exitCode as ExitCodeValue);
        else this.onMessage(worker, msg);
      });
      child.once('exit', () => this.onExit(worker));
      this.send(worker, { type: 'start', config: { ...this.opts.config, clients, index: worker.index } });
    });
  }

  private onMessage(worker: Worker, msg: FromWorker): void {
    if (msg.type === 'events') for (const e of msg.events) this.opts.emit(e);
    else if (msg.type === 'request') this.send(worker, { type: 'reply', rid: msg.rid, value: this.opts.resource(msg.req) });
    else if (msg.type === 'done') worker.load = msg.load;
  }

  /** A worker that dies without being asked to has crashed, and so have its clients. */
  private onExit(worker: Worker): void {
    if (worker.stopped || worker.killed || this.origin === undefined) return;
    for (const c of worker.clients) this.opts.rec.instant(c.name, 'crash', { detail: `worker ${worker.child.pid} exited` });
  }

  private send(worker: Worker, msg: ToWorker): void {
    sendToWorker(worker.child, msg);
  }

  /** Every worker starts its clients, with the race clock's origin. */
  go(origin: string): void {
    this.origin = origin;
    for (const w of this.workers) this.send(w, { type: 'go', origin });
  }

  private live(): Worker[] {
    return this.workers.filter((w) => !w.killed && w.child.exitCode === null && w.child.signalCode === null);
  }

  /** The worker running `client`, if it is alive. */
  workerOf(client: string): { readonly pid: number; readonly clients: readonly ClientSpec[] } | undefined {
    const w = this.live().find((x) => x.clients.some((c) => c.name === client));
    return w && w.child.pid !== undefined ? { pid: w.child.pid, clients: w.clients } : undefined;
  }

  /** SIGSTOP the worker running `client` for `ms`, then SIGCONT; settles once it runs again. */
  async pause(client: string, ms: number): Promise<void> {
    const w = this.live().find((x) => x.clients.some((c) => c.name === client));
    if (!w || w.paused) return;
    w.paused = true;
    w.child.kill('SIGSTOP');
    await sleep(ms);
    this.resume(w);
  }

  private resume(w: Worker): void {
    if (!w.paused) return;
    w.paused = false;
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGCONT');
  }

  /** SIGKILL the worker running `client`; its clients crash, and a new worker takes over as `replacements`. */
  async crash(client: string, replacements: readonly ClientSpec[]): Promise<readonly ClientSpec[]> {
    const w = this.live().find((x) => x.clients.some((c) => c.name === client));
    if (!w) return [];
    w.killed = true;
    w.child.kill('SIGKILL');
    for (const c of w.clients) this.opts.rec.instant(c.name, 'crash', { detail: `SIGKILL worker ${w.child.pid}` });
    await w.exited;
    const fresh = await this.spawn(workerPath(), replacements);
    if (this.origin !== undefined) this.send(fresh, { type: 'go', origin: this.origin });
    return w.clients;
  }

  /** Asks every worker to finish (clients inside complete their cycle) and waits for them to exit. */
  async stop(): Promise<void> {
    for (const w of this.live()) {
      this.resume(w);
      w.stopped = true;
      this.send(w, { type: 'stop' });
    }
    const timer = setTimeout(() => void this.killAll(), STOP_TIMEOUT_MS);
    await Promise.all(this.workers.map((w) => w.exited));
    clearTimeout(timer);
  }

  /** What each worker measured about itself (those that finished normally). */
  loads(): WorkerLoad[] {
    return this.workers.flatMap((w) => (w.load ? [w.load] : []));
  }

  private async killAll(): Promise<void> {
    for (const w of this.workers) {
      w.killed = true;
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    }
    await Promise.all(this.workers.map((w) => w.exited));
  }
}
