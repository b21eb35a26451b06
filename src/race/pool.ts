// The race's clients as the runner and the chaos see them, in this process or spread over
// worker processes: connect, go, who holds a lock, pause or kill one, stop.

import type { RacePlan } from '../core/race/plan.js';
import type { ChaosClients } from './chaos.js';
import type { WorkerLoad } from './ipc.js';
import { LocalPool, type ClientSpec } from './local-pool.js';
import { ProcPool } from './proc-pool.js';
import type { Recorder } from './recorder.js';
import type { RaceResources } from './resources.js';
import type { SessionConfig, SessionFactory } from './session.js';
import type { HistoryEvent } from '../core/scenario/history.js';

export interface RacePool extends ChaosClients {
  connect(): Promise<void>;
  go(origin: string): void;
  stop(): Promise<void>;
  /** Worker processes' own CPU and loop-delay figures (none in-process). */
  loads(): WorkerLoad[];
}

export interface PoolOptions {
  readonly plan: RacePlan;
  readonly specs: readonly ClientSpec[];
  readonly session: SessionConfig;
  readonly factory: SessionFactory;
  readonly resources: RaceResources;
  readonly rec: Recorder;
  readonly emit: (event: HistoryEvent) => void;
  /** Test hook (in-process clients): the race's first hold blocks the process this long. */
  readonly stallFirstHoldMs?: number | undefined;
  /** Who holds a lock right now, as the recorded history says (for --procs). */
  readonly holders: () => string[];
  /** A crashed client's successor joins the race (the runner adds it to its key's history). */
  readonly onJoin: (spec: ClientSpec) => void;
  /** The key of any client that ever ran (undefined for a name never used). */
  readonly keyOf: (name: string) => string | undefined;
}

/** c7 -> c7.1 -> c7.2: a crashed client's successor is a new client to the checker. */
export function successor(name: string, taken: (name: string) => boolean): string {
  const base = name.split('.')[0]!;
  for (let n = 1; ; n++) if (!taken(`${base}.${n}`)) return `${base}.${n}`;
}

export function openPool(opts: PoolOptions): RacePool {
  return opts.plan.procs > 0 ? procPool(opts) : localPool(opts);
}

function localPool(opts: PoolOptions): RacePool {
  const { plan, rec } = opts;
  const pool = new LocalPool(opts.factory, { ...plan, stallFirstHoldMs: opts.stallFirstHoldMs }, opts.resources.port(), rec);
  return {
    connect: () => pool.connect(opts.specs),
    go: () => pool.go(),
    stop: () => pool.stop(),
    loads: () => [],
    holders: () => pool.holders(),
    pause: async (client, ms) => {
      await pool.pause(client, ms);
      return `froze ${client} (its steps and renewals) for ${ms} ms`;
    },
    crash: async (client) => {
      const next = { name: successor(client, (n) => opts.keyOf(n) !== undefined), key: opts.keyOf(client) ?? plan.keys[0]! };
      opts.onJoin(next);
      await pool.crash(client, next);
      return `${client} crashed (sockets dropped, no release); ${next.name} joins`;
    },
  };
}

function procPool(opts: PoolOptions): RacePool {
  const { plan } = opts;
  const pool = new ProcPool({
    config: { session: opts.session, holdMs: plan.holdMs, holdDist: plan.holdDist, waitMs: plan.waitMs },
    emit: opts.emit,
    resource: (req) => opts.resources.answer(req),
    rec: opts.rec,
  });
  const groups: ClientSpec[][] = Array.from({ length: plan.procs }, () => []);
  opts.specs.forEach((spec, i) => groups[i % plan.procs]!.push(spec));
  return {
    connect: () => pool.start(groups),
    go: (origin) => pool.go(origin),
    stop: () => pool.stop(),
    loads: () => pool.loads(),
    holders: opts.holders,
    pause: async (client, ms) => {
      const w = pool.workerOf(client);
      if (!w) return `${client} has no live worker`;
      // Every client of the stopped process is frozen, and the checker should know it.
      const ids = w.clients.map((c) => ({ c: c.name, id: opts.rec.invoke(c.name, 'pause', { detail: `SIGSTOP worker ${w.pid}` }) }));
      await pool.pause(client, ms);
      for (const { c, id } of ids) opts.rec.done(c, 'pause', id, 'ok');
      return `SIGSTOP worker ${w.pid} (${w.clients.length} clients) for ${ms} ms, then SIGCONT`;
    },
    crash: async (client) => {
      const w = pool.workerOf(client);
      if (!w) return `${client} has no live worker`;
      const next: ClientSpec[] = [];
      for (const c of w.clients) {
        const spec = { name: successor(c.name, (n) => opts.keyOf(n) !== undefined), key: c.key };
        opts.onJoin(spec);
        next.push(spec);
      }
      await pool.crash(client, next);
      return `SIGKILL worker ${w.pid} (${w.clients.length} clients); a new worker runs ${next.map((s) => s.name).join(', ')}`;
    },
  };
}
