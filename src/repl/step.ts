// `step <scenario> [variant]`: runs one variant of a scenario on its own sandbox, one step per
// Enter (`continue` runs the rest, Ctrl-C stops), with the sandbox attached to the panel and the
// lock key watched, so Redis's state shows after every step, and the checker's findings so far
// printed before the next one.

import { parseInspectKind } from '../core/decode/index.js';
import { UsageError } from '../core/errors.js';
import { checkHistory } from '../core/scenario/checker.js';
import type { History, HistoryEvent } from '../core/scenario/history.js';
import { eventLine, seconds } from '../core/scenario/timeline-events.js';
import { chartLines, verdictLines, windowText } from '../core/scenario/timeline-text.js';
import { deriveLanes } from '../core/scenario/timeline.js';
import type { SandboxHandle } from '../sandbox/index.js';
import { sandboxesRoot } from '../sandbox/state.js';
import { stepText, setupText } from '../scenario/describe.js';
import { resolveScenario } from '../scenario/load.js';
import { stepsOf, type Scenario, type Step, type Variant } from '../scenario/model.js';
import { laneNodes, runScenario } from '../scenario/run-scenario.js';
import { startScenarioSandbox } from '../scenario/sandbox.js';
import type { StepView } from '../core/repl/screen-parts.js';
import type { ReplHost, SteppedRun } from './host.js';

/** A scenario run paused at each step's gate until the user says go. */
export class StepRun implements SteppedRun {
  readonly controller = new AbortController();
  private view!: StepView;
  /** Settles when the run has ended and its sandbox is stopped. */
  done: Promise<void> = Promise.resolve();
  private open: (() => void) | undefined;
  private all = false;

  constructor(
    private readonly session: ReplHost,
    scenario: Scenario,
    variant: Variant,
    total: number,
  ) {
    this.show({ scenario: scenario.name, variant: variant.name, next: 1, total });
  }

  get scenario(): string {
    return this.view.scenario;
  }

  /** What the prompt shows while a scenario is being stepped through. */
  private show(view: StepView): void {
    this.view = view;
    this.session.dispatch({ type: 'stepping', view });
  }

  /** Enter: runs the step the run waits at; false if it is not waiting. */
  next(): boolean {
    if (!this.open) return false;
    this.go();
    return true;
  }

  /** `continue`: runs this step and every later one without stopping. */
  continueAll(): void {
    this.all = true;
    this.go();
  }

  /** Ctrl-C: stops the run (its clients and sandbox are closed). */
  stop(): void {
    this.controller.abort();
    this.go();
  }

  /** The runner's beforeStep: waits for the user unless told to run on. */
  gate(step: Step, index: number): Promise<void> {
    const text = stepText(step);
    this.show({ ...this.view, next: index + 1, waiting: `${text.at}  ${text.lane}  ${text.text}` });
    if (this.all || this.controller.signal.aborted) return Promise.resolve(this.ran());
    return new Promise((resolve) => {
      this.open = () => resolve(this.ran());
    });
  }

  private go(): void {
    const open = this.open;
    this.open = undefined;
    open?.();
  }

  private ran(): void {
    this.show({ ...this.view, waiting: undefined });
  }
}

/** Prints events as they are recorded, dropping an invoke its own completion follows at once (like the text timeline). */
function eventPrinter(print: (text: string) => void) {
  let pending: HistoryEvent | undefined;
  const show = (e: HistoryEvent): void => {
    const line = eventLine(e);
    print(`${seconds(line.t).padStart(8)}  ${line.lane.padEnd(8)} ${line.text}`);
  };
  const completes = (e: HistoryEvent): boolean =>
    pending !== undefined && (pending.kind === 'op' || pending.kind === 'fault') && e.kind === pending.kind && e.id === pending.id && e.phase !== 'invoke';
  return {
    event(e: HistoryEvent): void {
      if (pending && !completes(e)) show(pending);
      pending = undefined;
      if ((e.kind === 'op' || e.kind === 'fault') && e.phase === 'invoke') pending = e;
      else show(e);
    },
    flush(): void {
      if (pending) show(pending);
      pending = undefined;
    },
  };
}

/** The key a variant's clients contend for (its own, or the scenario's). */
const lockKey = (scenario: Scenario, variant: Variant): string => variant.lock?.key ?? scenario.lock.key;

export const STEP_USAGE = 'step <scenario> [variant] [--speed x]';
/**
 * Scenario times are milliseconds apart; at a tenth of the speed a 300 ms lease lasts 3 s, long
 * enough to see on the panel between steps.
 */
export const DEFAULT_STEP_SPEED = 0.1;

function stepArgs(args: readonly string[]): { words: string[]; speed: number } {
  const words: string[] = [];
  let speed = DEFAULT_STEP_SPEED;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = arg === '--speed' ? args[++i] : arg.startsWith('--speed=') ? arg.slice('--speed='.length) : undefined;
    if (value === undefined && arg.startsWith('-')) throw new UsageError(`unknown option ${arg}: ${STEP_USAGE}`);
    if (value === undefined) {
      words.push(arg);
      continue;
    }
    speed = Number(value);
    if (!Number.isFinite(speed) || speed <= 0 || speed > 10) throw new UsageError(`invalid --speed "${value}": a number above 0 and up to 10, e.g. 0.1 for ten times slower`);
  }
  return { words, speed };
}

/** Starts stepping through a scenario; returns once its sandbox is up and the first step waits. */
export async function startStep(session: ReplHost, args: readonly string[]): Promise<void> {
  if (session.stepRun) throw new UsageError(`already stepping through ${session.stepRun.scenario}: Enter runs the next step, continue the rest, Ctrl-C stops`);
  const { words, speed } = stepArgs(args);
  const [name, variantName, ...rest] = words;
  if (name === undefined || rest.length > 0) throw new UsageError(`${STEP_USAGE}: e.g. step expired-lease-misdeletion unsafe (scenario list shows them)`);
  const scenario = await resolveScenario(name);
  const variant = variantName === undefined ? scenario.variants[0] : scenario.variants.find((v) => v.name === variantName);
  if (!variant) throw new UsageError(`${scenario.name} has no variant "${variantName}": ${scenario.variants.map((v) => v.name).join(', ')}`);
  const steps = stepsOf(scenario, variant.name);
  const run = new StepRun(session, scenario, variant, steps.length);
  session.setStepRun(run);
  try {
    for (const line of [`${scenario.name}: ${scenario.title}`, ...setupText(scenario), `variant ${variant.name}: ${variant.description}`]) session.print(line, 'result');
    session.print(`starting a ${scenario.sandbox.topology} sandbox for it…`);
    const sandbox = await startScenarioSandbox(scenario, { signal: run.controller.signal, dir: sandboxesRoot(undefined, session.env) });
    session.attach(sandbox);
    const key = lockKey(scenario, variant);
    session.dispatch({ type: 'watched', keys: [key], kind: parseInspectKind(variant.lock?.kind ?? scenario.lock.kind) });
    session.refreshPanel();
    session.print(
      `${steps.length} steps at ${speed}x speed: Enter runs the next one, continue runs the rest, Ctrl-C stops; the panel shows ${key} after each. ` +
        'Real time passes between steps: a lease runs out while you read, as it would under a stalled client.',
    );
    run.done = drive(session, run, scenario, variant, sandbox, speed);
  } catch (err) {
    session.setStepRun(undefined);
    session.dispatch({ type: 'stepping', view: undefined });
    throw err;
  }
}

async function drive(session: ReplHost, run: StepRun, scenario: Scenario, variant: Variant, sandbox: SandboxHandle, speed: number): Promise<void> {
  const events: HistoryEvent[] = [];
  const printer = eventPrinter((text) => session.print(text, 'event'));
  const reported = new Set<string>();
  const history = (): History => ({ clients: scenario.clients.map((c) => c.name), nodes: laneNodes(sandbox), events });
  try {
    // One attempt: a stepped run is the user's, so it is judged, never replayed behind their back.
    const result = await runScenario(scenario, {
      sandbox,
      variants: [variant.name],
      speed,
      attempts: 1,
      signal: run.controller.signal,
      onEvent: (e) => {
        events.push(e);
        printer.event(e);
      },
      beforeStep: async (step, index) => {
        printer.flush();
        // Findings so far: only what is new since the last step.
        for (const v of checkHistory(history(), { starvationMs: scenario.starvationMs }).violations) {
          const id = `${v.kind}@${v.from}`;
          if (reported.has(id)) continue;
          reported.add(id);
          session.print(`  ! ${v.kind} ${windowText(v.from, v.to)}${v.clients.length ? ` (${v.clients.join(', ')})` : ''}: ${v.message}`, 'error');
        }
        session.refreshPanel();
        await run.gate(step, index);
      },
    });
    printer.flush();
    const summary = result.variants[0];
    if (!summary) return;
    const width = Math.min(100, session.columns());
    for (const line of [...chartLines(deriveLanes(summary.history, { violations: summary.verdict.violations }), width), '', ...verdictLines(summary, width)]) {
      session.print(line, 'result');
    }
  } catch (err) {
    printer.flush();
    session.print(run.controller.signal.aborted ? `stopped ${scenario.name} (${variant.name})` : `step run failed: ${err instanceof Error ? err.message : String(err)}`, 'error');
  } finally {
    session.setStepRun(undefined);
    session.dispatch({ type: 'stepping', view: undefined });
    await sandbox.stop().catch(() => undefined);
    session.dispatch({ type: 'sandbox-detached', restore: true });
    session.dispatch({ type: 'unwatched', keys: [lockKey(scenario, variant)] });
    session.dispatch({ type: 'kind-forgotten', key: lockKey(scenario, variant) });
    session.print(`stopped the scenario's sandbox: commands go to ${session.state.target.target.label} again`);
  }
}
