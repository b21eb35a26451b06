import { checkHistory } from '../core/scenario/checker.js';
import type { HistoryEvent } from '../core/scenario/history.js';
import type { ScenarioRun, VariantRun } from '../core/scenario/run.js';
import { outcomeOf } from '../core/scenario/timing.js';
import { matchesExpectation } from '../core/scenario/verdict.js';
import type { SandboxHandle } from '../sandbox/handle.js';
import { isClientStep, stepsOf, type Scenario, type Step, type Variant } from './model.js';
import { runVariant, type VariantResult } from './runner.js';
import { startScenarioSandbox } from './sandbox.js';

/** Runs a variant gets before it is reported inconclusive (the first and two retries). */
export const DEFAULT_ATTEMPTS = 3;

export interface RunScenarioOptions {
  /** Variant names to run, in file order; default all. */
  readonly variants?: readonly string[] | undefined;
  readonly speed?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Run on this sandbox (left running); otherwise one is started for the run and stopped after it. */
  readonly sandbox?: SandboxHandle | undefined;
  /** Leave the sandbox this run started running (and its state file) when done. */
  readonly keepSandbox?: boolean | undefined;
  /** Where the sandbox's state lives and redis-server is found (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The server binary the sandbox this run starts runs (--redis-server); default $REDLOCK_REDIS_SERVER, then PATH. */
  readonly redisServer?: string | undefined;
  /** The step gate, awaited before each step (the REPL's `step`); its waiting counts as lateness. */
  readonly beforeStep?: ((step: Step, index: number) => Promise<void>) | undefined;
  /** How many runs an inconclusive variant gets in all (default DEFAULT_ATTEMPTS; at least 1). */
  readonly attempts?: number | undefined;
  /** The lateness the race tolerates (scenario ms); default the scenario's. */
  readonly toleranceMs?: number | undefined;
  /** Test hook: block the process for `ms` before step number `step` of every attempt. */
  readonly stall?: { readonly step: number; readonly ms: number } | undefined;
  readonly onSandbox?: ((sandbox: SandboxHandle) => void) | undefined;
  readonly onVariantStart?: ((variant: Variant, index: number) => void) | undefined;
  /** An attempt was inconclusive and the variant runs again (`attempt` is the next one, 2-based). */
  readonly onRetry?: ((variant: Variant, attempt: number, reason: string) => void) | undefined;
  readonly onEvent?: ((e: HistoryEvent) => void) | undefined;
  readonly onVariantEnd?: ((run: VariantRun) => void) | undefined;
}

/** How long a variant is meant to take in scenario ms: its last step plus the settle time. */
export function plannedMs(scenario: Scenario, variant: string): number {
  const steps = stepsOf(scenario, variant);
  const last = Math.max(0, ...steps.map((s) => s.at + (isClientStep(s) && s.do === 'pause' ? s.forMs : 0)));
  return last + scenario.settleMs;
}

/** The node lanes a variant's view starts with (the history adds any other node it names). */
export function laneNodes(sandbox: SandboxHandle): string[] {
  return sandbox.nodes.filter((n) => n.role !== 'sentinel').map((n) => n.name);
}

/** A variant's result from one run: its verdict against the file's expectation, and whether its timing lets that count. */
export function judgeVariant(scenario: Scenario, variant: Variant, result: VariantResult, attempts: number): VariantRun {
  const verdict = checkHistory(result.history, { starvationMs: scenario.starvationMs });
  const matched = matchesExpectation(verdict, variant.expect);
  return {
    variant: variant.name,
    description: variant.description,
    expected: variant.expect,
    verdict,
    matched,
    outcome: outcomeOf(matched, result.timing),
    timing: result.timing,
    attempts,
    history: result.history,
    durationMs: result.durationMs,
  };
}

/**
 * The scenario runner `scenario run`, the REPL's `step` and the catalogue tests share: runs the
 * chosen variants one after another on one sandbox (each from a clean state), checks each history,
 * compares the verdict with the file's `expect`, and judges the run's timing. A variant whose
 * timing left the window its race tolerates is inconclusive and runs again, up to `attempts` runs.
 */
export async function runScenario(scenario: Scenario, opts: RunScenarioOptions = {}): Promise<ScenarioRun> {
  const chosen = opts.variants ? scenario.variants.filter((v) => opts.variants!.includes(v.name)) : scenario.variants;
  const attempts = Math.max(1, opts.attempts ?? DEFAULT_ATTEMPTS);
  const ownSandbox = opts.sandbox === undefined;
  const sandbox = opts.sandbox ?? (await startScenarioSandbox(scenario, { signal: opts.signal, persist: opts.keepSandbox, env: opts.env, redisServer: opts.redisServer }));
  const runs: VariantRun[] = [];
  try {
    opts.onSandbox?.(sandbox);
    for (const [index, variant] of chosen.entries()) {
      opts.onVariantStart?.(variant, index);
      let run: VariantRun | undefined;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (run) opts.onRetry?.(variant, attempt, run.timing.inconclusive ?? '');
        const result = await runVariant(scenario, variant, {
          sandbox,
          speed: opts.speed,
          onEvent: opts.onEvent,
          signal: opts.signal,
          beforeStep: opts.beforeStep,
          toleranceMs: opts.toleranceMs,
          stall: opts.stall,
        });
        run = judgeVariant(scenario, variant, result, attempt);
        if (run.outcome !== 'inconclusive') break;
      }
      runs.push(run!);
      opts.onVariantEnd?.(run!);
    }
  } finally {
    if (ownSandbox && !opts.keepSandbox) await sandbox.stop().catch(() => undefined);
  }
  return { name: scenario.name, title: scenario.title, variants: runs };
}
