// Runs one race: target up, clients connected, go; chaos on its schedule; stop after the
// duration (or Ctrl-C); then the history of each key goes through the scenario checker, and the
// figures and the harness's self-check make the result. Everything started is stopped, always.

import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { connectionsPerClient, fdShortfall, parseOpenFilesLimit } from '../core/race/fds.js';
import { harnessReport, type HarnessReport } from '../core/race/harness.js';
import { judgeRace, type RaceJudgement } from '../core/race/judge.js';
import type { RacePlan } from '../core/race/plan.js';
import { RaceTally, type RaceSnapshot } from '../core/race/tally.js';
import { checkHistory } from '../core/scenario/checker.js';
import type { EndEvent, History, HistoryEvent } from '../core/scenario/history.js';
import type { Verdict, Violation } from '../core/scenario/verdict.js';
import { startChaos } from './chaos.js';
import { originToText, raceClock } from './clock.js';
import { watchLoad, watchMachine } from './load.js';
import type { ClientSpec } from './local-pool.js';
import { openPool, type RacePool } from './pool.js';
import { Recorder } from './recorder.js';
import { RaceResources } from './resources.js';
import { serverCpuSeconds } from './server-cpu.js';
import { protocolSessions, type SessionConfig, type SessionFactory } from './session.js';
import { openTarget, RACE_REDLOCK_NODES, refuseKeysInUse, type RaceTargetHandle } from './target.js';

export interface KeyResult {
  readonly key: string;
  readonly clients: readonly string[];
  readonly acquisitions: number;
  /** Increments the clients completed; the counter should equal it. */
  readonly increments: number;
  readonly counter: number;
  readonly register: EndEvent['register'];
  /** Writes the fenced register refused (a stale token). */
  readonly rejectedWrites: number;
  readonly verdict: Verdict;
  readonly history: History;
}

export interface RaceResult {
  readonly plan: RacePlan;
  readonly target: string;
  readonly elapsedMs: number;
  /** The race was cut short by Ctrl-C. */
  readonly interrupted: boolean;
  readonly stats: RaceSnapshot;
  readonly keys: readonly KeyResult[];
  readonly violations: readonly (Violation & { readonly key: string })[];
  readonly harness: HarnessReport;
  /** safe, unsafe, or inconclusive when the harness ran later than the lease allows (judgeRace). */
  readonly judgement: RaceJudgement;
}

/** What a live view can ask while the race runs. */
export interface RaceMonitor {
  readonly plan: RacePlan;
  readonly target: string;
  /** ms since the start (go). */
  now(): number;
  snapshot(): RaceSnapshot;
  /** Each key's events so far, in arrival order (live checks read the recent end). */
  events(key: string): readonly HistoryEvent[];
  clients(key: string): readonly string[];
}

export interface RaceHooks {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Ctrl-C: the race stops early, cleanly, and still reports. */
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((line: string) => void) | undefined;
  /** Called once the clients run. */
  readonly onStart?: ((monitor: RaceMonitor) => void) | undefined;
  /** Other lock libraries (the benchmark); in-process clients only. */
  readonly sessions?: SessionFactory | undefined;
  /** Test hook (in-process clients): the first hold blocks the whole process this long. */
  readonly stallFirstHoldMs?: number | undefined;
}

/** Bounded only by the machine: far longer than any hold, so a stuck acquisition is not a violation here. */
const NO_STARVATION_BOUND = Number.POSITIVE_INFINITY;

export async function runRace(plan: RacePlan, hooks: RaceHooks): Promise<RaceResult> {
  if (hooks.sessions && plan.procs > 0) throw new UsageError('other lock libraries run in-process only (no --procs)');
  checkOpenFiles(plan);
  const target = await openTarget(plan, { env: hooks.env, signal: hooks.signal, onProgress: hooks.onProgress });
  try {
    await refuseKeysInUse(plan, target);
    return await raceOn(plan, target, hooks);
  } finally {
    await target.close();
  }
}

/** Refuses before anything starts when the process may not open the sockets the clients need. */
function checkOpenFiles(plan: RacePlan): void {
  let limits = '';
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return; // not Linux: the connections themselves will say so if the limit is too low
  }
  const perProcess = plan.procs > 0 ? Math.ceil(plan.clients / plan.procs) : plan.clients;
  const nodes = plan.kind === 'redlock' ? (plan.target.type === 'url' ? (plan.target.nodes?.length ?? 1) : RACE_REDLOCK_NODES) : 1;
  const refusal = fdShortfall(perProcess, connectionsPerClient(plan.kind, nodes), parseOpenFilesLimit(limits));
  if (refusal) throw new UsageError(refusal);
}

async function raceOn(plan: RacePlan, target: RaceTargetHandle, hooks: RaceHooks): Promise<RaceResult> {
  const specs: ClientSpec[] = Array.from({ length: plan.clients }, (_, i) => ({ name: `c${i + 1}`, key: plan.keys[i % plan.keys.length]! }));
  const keyOf = new Map(specs.map((s) => [s.name, s.key]));
  const clientsOf = new Map(plan.keys.map((k) => [k, specs.filter((s) => s.key === k).map((s) => s.name)]));
  const events = new Map(plan.keys.map((k) => [k, [] as HistoryEvent[]]));
  const resources = new RaceResources(plan.keys, plan.kind);
  const tally = new RaceTally(specs);
  let origin = process.hrtime.bigint();
  let clock = raceClock(origin);

  const emit = (e: HistoryEvent): void => {
    if (e.kind === 'op' || e.kind === 'note' || e.kind === 'lock-lost' || e.kind === 'renewed') {
      const key = keyOf.get(e.kind === 'note' ? e.lane : e.client);
      if (key !== undefined) events.get(key)!.push(e);
      else if (e.kind === 'note') for (const list of events.values()) list.push(e); // chaos notes
    } else for (const list of events.values()) list.push(e);
    tally.add(e);
  };
  const rec = new Recorder(() => clock(), emit, 0);
  const session: SessionConfig = { kind: plan.kind, target: target.spec, nodes: target.nodes, leaseMs: plan.leaseMs, release: plan.release, renew: plan.renew };
  const pool: RacePool = openPool({
    plan,
    specs,
    session,
    factory: hooks.sessions ?? protocolSessions(session),
    stallFirstHoldMs: hooks.stallFirstHoldMs,
    resources,
    rec,
    emit,
    holders: () => tally.holders(),
    keyOf: (name) => keyOf.get(name),
    onJoin: (spec) => {
      keyOf.set(spec.name, spec.key);
      clientsOf.get(spec.key)!.push(spec.name);
      tally.addClient(spec.name, spec.key);
    },
  });

  hooks.onProgress?.(`connecting ${plan.clients} clients to ${target.label}`);
  await pool.connect();
  let stopping: Promise<void> | undefined;
  const stopPool = (): Promise<void> => (stopping ??= pool.stop());
  let stopChaos = async (): Promise<void> => {};
  let load: ReturnType<typeof watchLoad> | undefined;
  let elapsedMs = 0;
  let interrupted = false;
  try {
    const cpuBefore = await serverCpuSeconds(target.spec);
    origin = process.hrtime.bigint();
    clock = raceClock(origin);
    load = watchLoad();
    const machine = watchMachine();
    pool.go(originToText(origin));
    if (plan.chaos) {
      const chaos = startChaos({
        verb: plan.chaos,
        everyMs: plan.chaosEveryMs,
        forMs: plan.chaosForMs,
        leaseMs: plan.leaseMs,
        rec,
        clients: pool,
        sandbox: target.sandbox,
        node: target.chaosNode,
        deadline: Date.now() + plan.durationMs,
      });
      stopChaos = () => chaos.stop();
    }
    hooks.onStart?.({
      plan,
      target: target.label,
      now: () => clock(),
      snapshot: () => tally.snapshot(clock(), 20_000),
      events: (key) => events.get(key) ?? [],
      clients: (key) => clientsOf.get(key) ?? [],
    });
    interrupted = await waitFor(plan.durationMs, hooks.signal);
    await stopChaos();
    await stopPool();
    elapsedMs = clock();
    const parentLoad = load.read();
    const cpuAfter = await serverCpuSeconds(target.spec);
    const serverPct = cpuBefore !== undefined && cpuAfter !== undefined ? ((cpuAfter - cpuBefore) * 1000 * 100) / parentLoad.wallMs : undefined;
    const harness = harnessReport(parentLoad, pool.loads(), serverPct, machine.read());
    const keys = plan.keys.map((key) => judgeKey(key, clientsOf.get(key)!, events.get(key)!, resources.final(key), target.nodeNames, elapsedMs));
    const stats = tally.snapshot(elapsedMs);
    const violations = keys.flatMap((k) => k.verdict.violations.map((v) => ({ ...v, key: k.key })));
    return {
      plan,
      target: target.label,
      elapsedMs,
      interrupted,
      stats,
      keys,
      violations,
      harness,
      judgement: judgeRace(plan, violations.length, Math.max(harness.loopDelayMaxMs, harness.workerLoopDelayMaxMs), {
        acquisitions: keys.reduce((n, k) => n + k.acquisitions, 0),
        errors: stats.errors,
      }),
    };
  } finally {
    load?.stop();
    await stopChaos().catch(() => undefined);
    await stopPool().catch(() => undefined);
  }
}

/** Resolves after ms, or early (true) when the signal aborts. */
function waitFor(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(true);
    const timer = setTimeout(() => done(false), ms);
    const onAbort = (): void => done(true);
    function done(aborted: boolean): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(aborted);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** One key's history, closed by the resource's end state, through the checker. */
function judgeKey(
  key: string,
  clients: readonly string[],
  list: HistoryEvent[],
  resource: ReturnType<RaceResources['final']>,
  nodes: readonly string[],
  end: number,
): KeyResult {
  // Workers' batches arrive interleaved: order by time (the sort is stable, so ties keep arrival order).
  const events = [...list].sort((a, b) => a.t - b.t);
  const last = Math.max(end, events.at(-1)?.t ?? 0);
  events.push({ kind: 'end', t: last, counter: resource.counter, register: resource.register });
  const history: History = { clients: [...clients], nodes: [...nodes], events };
  let acquisitions = 0;
  let increments = 0;
  for (const e of events) {
    if (e.kind !== 'op' || e.phase !== 'ok') continue;
    if (e.op === 'acquire') acquisitions += 1;
    else if (e.op === 'incr' && e.accepted !== false) increments += 1;
  }
  return {
    key,
    clients,
    acquisitions,
    increments,
    counter: resource.counter,
    register: resource.register,
    rejectedWrites: resource.rejected,
    verdict: checkHistory(history, { starvationMs: NO_STARVATION_BOUND }),
    history,
  };
}
