import { checkHistory } from '../core/scenario/checker.js';
import type { HistoryEvent } from '../core/scenario/history.js';
import type { ScenarioRun, VariantRun } from '../core/scenario/run.js';
import { matchesExpectation } from '../core/scenario/verdict.js';
import type { SandboxHandle } from '../sandbox/handle.js';
import { isClientStep, stepsOf, type Scenario, type Variant } from './model.js';
import { runVariant } from './runner.js';
import { startScenarioSandbox } from './sandbox.js';

export interface RunScenarioOptions {
  /** Variant names to run, in file order; default all. */
  readonly variants?: readonly string[] | undefined;
  readonly speed?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Leave the sandbox running (and its state file) when done. */
  readonly keepSandbox?: boolean | undefined;
  /** Where the sandbox's state lives and redis-server is found (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  readonly onSandbox?: ((sandbox: SandboxHandle) => void) | undefined;
  readonly onVariantStart?: ((variant: Variant, index: number) => void) | undefined;
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

/**
 * Runs the chosen variants of a scenario one after another on one sandbox (started here, stopped
 * at the end unless kept), checks each history and compares the verdict with the file's `expect`.
 */
export async function runScenario(scenario: Scenario, opts: RunScenarioOptions = {}): Promise<ScenarioRun> {
  const chosen = opts.variants ? scenario.variants.filter((v) => opts.variants!.includes(v.name)) : scenario.variants;
  const sandbox = await startScenarioSandbox(scenario, { signal: opts.signal, persist: opts.keepSandbox, env: opts.env });
  const runs: VariantRun[] = [];
  try {
    opts.onSandbox?.(sandbox);
    for (const [index, variant] of chosen.entries()) {
      opts.onVariantStart?.(variant, index);
      const { history, durationMs } = await runVariant(scenario, variant, { sandbox, speed: opts.speed, onEvent: opts.onEvent, signal: opts.signal });
      const verdict = checkHistory(history, { starvationMs: scenario.starvationMs });
      const run: VariantRun = {
        variant: variant.name,
        description: variant.description,
        expected: variant.expect,
        verdict,
        matched: matchesExpectation(verdict, variant.expect),
        history,
        durationMs,
      };
      runs.push(run);
      opts.onVariantEnd?.(run);
    }
  } finally {
    if (!opts.keepSandbox) await sandbox.stop().catch(() => undefined);
  }
  return { name: scenario.name, title: scenario.title, variants: runs };
}
