import { InterruptedError, UsageError } from '../core/errors.js';
import type { EndEvent, History, HistoryEvent } from '../core/scenario/history.js';
import type { TimingReport } from '../core/scenario/timing.js';
import type { SandboxHandle } from '../sandbox/handle.js';
import { ClientRuntime, type ClientContext } from './client.js';
import { runClientAction } from './client-ops.js';
import { sleep } from '../core/sleep.js';
import { RunClock } from './clock.js';
import { desiredConfig } from './config.js';
import { runFault } from './faults.js';
import { isClientStep, isFaultStep, isWaitStep, stepsOf, toleranceOf, waitTimeoutOf, type Scenario, type Step, type Variant, type WaitStep } from './model.js';
import { Observer } from './observer.js';
import { prepareSandbox } from './prepare.js';
import { LockReader } from './reader.js';
import { Recorder } from './recorder.js';
import { DemoResource } from '../core/demo-resource.js';
import { needsProxy, startScenarioSandbox } from './sandbox.js';
import { checkClientPartitions, clientTargets, readTargets, redisNodes } from './targets.js';
import { stallProcess, TimingProbe } from './timing-probe.js';
import { UnfinishedSteps } from './unfinished-steps.js';
import { runWait, waitLabel, type WaitContext } from './waits.js';

export interface RunVariantOptions {
  /** Reuse this sandbox (every variant of a run can share one); otherwise one is started and stopped. */
  readonly sandbox?: SandboxHandle | undefined;
  /**
   * Time scale: real ms = scenario ms / speed (2 = twice as fast, 0.5 = half speed), for every
   * `at`, lease, wait, gap, pause and fault duration. The history is recorded in scenario ms.
   */
  readonly speed?: number | undefined;
  /** Every event as it is recorded (live views). */
  readonly onEvent?: ((e: HistoryEvent) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * Awaited before each step (the REPL's `step`: one step per Enter). The run's clock keeps going
   * meanwhile, so a step whose time has passed runs as soon as its gate opens.
   */
  readonly beforeStep?: ((step: Step, index: number) => Promise<void>) | undefined;
  /** The lateness the race tolerates (scenario ms); default the scenario's (toleranceOf). */
  readonly toleranceMs?: number | undefined;
  /** Test hook: block the whole process for `ms` just before step number `step` (1-based) runs. */
  readonly stall?: { readonly step: number; readonly ms: number } | undefined;
}

export interface VariantResult {
  readonly history: History;
  /** How late its steps and timers ran against what the race tolerates. */
  readonly timing: TimingReport;
  /** Wall-clock ms the variant took, preparation included. */
  readonly durationMs: number;
}

// A step that hangs (a client cut off and never healed) must not hold the run forever.
const HANG_CAP_MS = 15_000;

// Faults that take their own time by nature (Sentinel's election, seconds): later client steps
// race them on purpose and do not wait for them.
const SLOW_FAULTS: ReadonlySet<string> = new Set(['failover']);

/**
 * Runs one variant of a scenario on a real sandbox: prepares it, starts every client, runs each
 * step at its time, records the history, and ends settleMs after the last step completed with the
 * demo resource's final state. Every connection, timer and proxy it started is gone when it
 * returns or throws. A fault the sandbox refuses, or a step the scenario cannot mean, throws.
 */
export async function runVariant(scenario: Scenario, variantRef: Variant | string, opts: RunVariantOptions = {}): Promise<VariantResult> {
  const started = performance.now();
  const variant = typeof variantRef === 'string' ? scenario.variants.find((v) => v.name === variantRef) : variantRef;
  if (!variant) throw new UsageError(`scenario ${scenario.name} has no variant "${String(variantRef)}": ${scenario.variants.map((v) => v.name).join(', ')}`);
  const steps = stepsOf(scenario, variant.name);
  checkClients(scenario, steps);
  if (opts.sandbox) checkSandbox(scenario, opts.sandbox);

  const failure = new AbortController();
  let fatal: unknown;
  const fail = (err: unknown): void => {
    fatal ??= err;
    failure.abort();
  };
  const signal = opts.signal ? AbortSignal.any([opts.signal, failure.signal]) : failure.signal;
  const ownSandbox = opts.sandbox === undefined;
  const sandbox = opts.sandbox ?? (await startScenarioSandbox(scenario, { signal }));
  const clock = new RunClock(opts.speed ?? 1);
  const recorder = new Recorder(clock, opts.onEvent);
  const probe = new TimingProbe(clock);
  const clients: ClientRuntime[] = [];
  const readers: LockReader[] = [];
  let observer: Observer | undefined;
  try {
    await prepareSandbox(sandbox, scenario, variant, signal);
    if (steps.some((s) => isClientStep(s) && s.do === 'partition')) checkClientPartitions(sandbox);
    const key = variant.lock?.key ?? scenario.lock.key;
    const eyes = readTargets(sandbox).map((t) => new LockReader(t, sandbox, 'redlock-cli:scenario-runner'));
    const watching = readTargets(sandbox).map((t) => new LockReader(t, sandbox, 'redlock-cli:scenario-observer'));
    readers.push(...eyes, ...watching);
    const owners = new Map<string, string>();
    const names = (owner: string): string => owners.get(owner.replace(/:write$/, '')) ?? owner;
    const ctx: ClientContext = {
      clock,
      recorder,
      resource: new DemoResource(variant.resource ?? scenario.resource),
      readers: eyes,
      key,
      kind: variant.lock?.kind ?? scenario.lock.kind,
      clientProxies: steps.some((s) => isClientStep(s) && (s.do === 'partition' || s.do === 'heal')),
      names,
      onTimer: probe.timer,
      onCommand: probe.command,
    };
    const targets = await clientTargets(sandbox);
    for (const [i, def] of scenario.clients.entries()) {
      const client = await ClientRuntime.open(def, i, ctx, targets, fail, runClientAction);
      clients.push(client);
      owners.set(client.ownerFor('reentrant'), def.name);
      owners.set(client.token, def.name);
    }
    // Connect the readers now, so the first poll after the start is one round trip.
    await Promise.all(readers.map((r) => r.peek(key).catch(() => undefined)));
    observer = new Observer(watching, key, recorder, names);

    // The first step's gate opens before the clock starts: nothing has happened yet to be late for.
    const first = steps[0];
    if (opts.beforeStep && first) await opts.beforeStep(first, 0);
    clock.start();
    probe.start();
    observer.start();
    const tracked = new Set<Promise<unknown>>();
    const track = (work: Promise<unknown>): void => {
      const settled = work.catch(() => undefined);
      tracked.add(settled);
    };
    let faults: Promise<void> = Promise.resolve();
    // The quick faults dispatched so far (all of the chain up to the latest one): a client step
    // waits for them to be in place, not for a fixed time after them.
    let quickFaults: Promise<void> = Promise.resolve();
    const faultCtx = {
      sandbox,
      clock,
      recorder,
      config: desiredConfig(scenario, variant),
      track,
      onFailover: () => readers.forEach((r) => r.drop()),
    };
    const byName = new Map(clients.map((c) => [c.name, c]));
    const tolerance = opts.toleranceMs ?? toleranceOf(scenario, variant.name);
    const waitCtx: WaitContext = { clock, recorder, sandbox, readers: eyes, key, clients: byName, signal };
    // How much later than their `at` the steps after a wait run: the event came that much after the wait's own time.
    let shift = 0;
    const unfinished = new UnfinishedSteps(probe, clock);
    const frozen = (name: string): boolean => byName.get(name)?.frozen ?? true;
    for (const [index, step] of steps.entries()) {
      const what = `step ${index + 1} (${stepLabel(step, key)})`;
      const planned = step.at + shift;
      let due = planned;
      if (opts.beforeStep && index > 0) {
        await opts.beforeStep(step, index);
        due = Math.max(due, clock.now());
        probe.add(what, planned, due, 'prompt');
      }
      await sleep(clock.untilReal(due), signal);
      if (signal.aborted) break;
      if (opts.stall?.step === index + 1) stallProcess(opts.stall.ms);
      // A client step (or a wait) after a fault depends on it: a latency or a replication stall that
      // a busy machine put in place late must not let the step run before it. The wait counts as lateness.
      if (isClientStep(step) || isWaitStep(step)) await faultsInPlace(quickFaults, signal);
      if (signal.aborted) break;
      probe.add(what, due, clock.now(), 'machine');
      if (isWaitStep(step)) {
        const moved = await awaitEvent(step, what, due, { ctx: waitCtx, probe, tolerance, timeoutMs: waitTimeoutOf(scenario, variant.name, step.wait) });
        // A wait that gave up leaves nothing to judge: the rest of the timetable is not run.
        if (moved === undefined) break;
        shift += moved;
      } else if (isFaultStep(step)) {
        unfinished.fault(what, undefined, frozen);
        faults = faults.then(() => (signal.aborted ? undefined : runFault(step, faultCtx))).catch(fail);
        if (!SLOW_FAULTS.has(step.fault)) quickFaults = faults;
      } else if (isClientStep(step)) {
        // A pause freezes the client's handling too: a step of its still unanswered (an acquire)
        // would complete after other clients' later steps, a race that was not planned.
        if (step.do === 'partition' || step.do === 'heal' || step.do === 'pause') unfinished.fault(what, step.client, frozen);
        const work = byName.get(step.client)!.dispatch(step);
        if (work) unfinished.track(step, what, due, work);
      }
      else recorder.note('scenario', step.note);
    }
    // A fault can leave work behind it (a paused node's resume): wait until nothing new appears.
    const everything = (async () => {
      for (let seen = -1; seen !== tracked.size; ) {
        seen = tracked.size;
        await Promise.all([faults, ...clients.map((c) => c.settled()), ...tracked]);
      }
    })();
    // The cap's timer is cancelled once the steps are done: a pending 15 s timer would keep the process alive.
    const capDone = new AbortController();
    const cap = sleep(HANG_CAP_MS, AbortSignal.any([signal, capDone.signal])).then(() => !capDone.signal.aborted);
    const hung = await Promise.race([everything.then(() => false), cap]);
    capDone.abort();
    // Lateness matters while the race runs; settling and teardown may take what they take.
    probe.stop();
    if (hung && !signal.aborted) recorder.note('scenario', `steps still running after ${HANG_CAP_MS / 1000} s were abandoned`);
    if (!signal.aborted) await sleep(clock.real(scenario.settleMs), signal);
    if (signal.aborted) throw fatal ?? new InterruptedError('scenario run interrupted');

    for (const c of clients) c.finish();
    await observer.stop();
    recorder.push<EndEvent>({ kind: 'end', ...ctx.resource.snapshot() });
    recorder.close();
    const timing = probe.report(tolerance);
    return { history: historyOf(scenario, sandbox, recorder.events), timing, durationMs: Math.round(performance.now() - started) };
  } finally {
    probe.stop();
    recorder.close();
    for (const c of clients) c.finish();
    await observer?.stop().catch(() => undefined);
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(readers.map((r) => r.close()));
    if (ownSandbox) await sandbox.stop().catch(() => undefined);
  }
}

/**
 * Runs a wait step that became due at `due`. Returns how far the steps after it move: as much as
 * the event's own time (the server's PTTL: a lease set a little late expires a little late) came
 * after `due`, up to the race's tolerance; or undefined when the wait gave up (the run is
 * inconclusive). An event due later than the tolerance allows counts as lateness. Seeing it late
 * (a slow read on a busy machine) is not counted here: it holds back the steps after the wait,
 * and their own lateness is measured against the plan.
 */
async function awaitEvent(
  step: WaitStep,
  what: string,
  due: number,
  w: { readonly ctx: WaitContext; readonly probe: TimingProbe; readonly tolerance: number; readonly timeoutMs: number },
): Promise<number | undefined> {
  const result = await runWait(step, w.timeoutMs, w.ctx);
  if (!result.seen) {
    if (!w.ctx.signal.aborted) w.probe.miss(`${what} ${result.reason}`);
    return undefined;
  }
  const eventDue = Math.max(due, result.dueMs ?? due);
  if (eventDue > due + w.tolerance) w.probe.add(`${what}: the event itself`, due + w.tolerance, eventDue, 'machine');
  return Math.min(eventDue, due + w.tolerance) - due;
}

/** Resolves once the faults are in place (their errors go to the run's failure), or after HANG_CAP_MS. */
async function faultsInPlace(faults: Promise<void>, signal: AbortSignal): Promise<void> {
  const done = new AbortController();
  await Promise.race([faults.catch(() => undefined), sleep(HANG_CAP_MS, AbortSignal.any([signal, done.signal]))]);
  done.abort();
}

/** A step in a few words, for a lateness report: `B acquire`, `clock n3`, `wait until orders expired`, `note`. */
function stepLabel(step: Step, key: string): string {
  if (isClientStep(step)) return `${step.client} ${step.do}`;
  if (isWaitStep(step)) return `wait for ${waitLabel(step.wait, key)}`;
  if (isFaultStep(step)) return step.node !== undefined ? `${step.fault} ${step.node}` : step.fault;
  return 'note';
}

function checkClients(scenario: Scenario, steps: readonly Step[]): void {
  const known = new Set(scenario.clients.map((c) => c.name));
  for (const s of steps) {
    if (isClientStep(s) && !known.has(s.client)) throw new UsageError(`step at ${s.at} ms names client "${s.client}", which the scenario does not declare`);
  }
}

/** A sandbox handed in must be the one the scenario describes, or its steps name nodes it lacks. */
function checkSandbox(scenario: Scenario, sandbox: SandboxHandle): void {
  const wanted = scenario.sandbox;
  const nodes = redisNodes(sandbox);
  if (sandbox.topology !== wanted.topology || (wanted.nodes !== undefined && wanted.topology === 'redlock' && nodes.length !== wanted.nodes)) {
    const size = wanted.nodes !== undefined ? ` with ${wanted.nodes} nodes` : '';
    throw new UsageError(`scenario ${scenario.name} runs on a ${wanted.topology} sandbox${size}; sandbox "${sandbox.name}" is ${sandbox.topology} with ${nodes.length} redis nodes`);
  }
  if (needsProxy(scenario) && nodes.some((n) => !n.proxy)) {
    throw new UsageError(`scenario ${scenario.name} has latency / partition faults, which need the fault proxy: sandbox "${sandbox.name}" was started without it`);
  }
}

/** Lanes: the topology's redis nodes, then any other node an event names (a sentinel, `sandbox`). */
function historyOf(scenario: Scenario, sandbox: SandboxHandle, events: readonly HistoryEvent[]): History {
  const nodes = redisNodes(sandbox).map((n) => n.name);
  for (const e of events) {
    const node = e.kind === 'fault' || e.kind === 'server' ? e.node : undefined;
    if (node !== undefined && !nodes.includes(node)) nodes.push(node);
  }
  return { clients: scenario.clients.map((c) => c.name), nodes, events: [...events] };
}
