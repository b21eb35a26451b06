import { expect } from 'vitest';
import { describeVerdict } from '../../src/core/scenario/checker.js';
import type { VariantRun } from '../../src/core/scenario/run.js';
import type { Scenario } from '../../src/scenario/model.js';
import { runScenario } from '../../src/scenario/run-scenario.js';
import type { SandboxHandle } from '../../src/sandbox/handle.js';
import { dump } from './fixture.js';

/**
 * Runs every variant of a shipped scenario through the one runner `scenario run` uses, on the
 * test's sandbox, and expects no wrong verdict: each variant as expected, or inconclusive (its
 * timing left the window its race tolerates on every retry: the machine was too busy), which says
 * so and is never taken for a verdict. Returns the variants that reached their verdict on time.
 */
export async function expectNoWrongVerdict(scenario: Scenario, sandbox: SandboxHandle): Promise<VariantRun[]> {
  const run = await runScenario(scenario, { sandbox });
  expect(run.variants.map((v) => v.variant)).toEqual(scenario.variants.map((v) => v.name));
  for (const v of run.variants) {
    const why = `${scenario.name} ${v.variant}: ${describeVerdict(v.verdict).join('; ')}; timing ${JSON.stringify(v.timing)}\n${dump(v.history)}`;
    expect(v.outcome, why).not.toBe('not-as-expected');
    if (v.outcome === 'inconclusive') {
      expect(v.timing.inconclusive, why).toMatch(/late|prompt/);
      console.warn(`${scenario.name} ${v.variant}: inconclusive after ${v.attempts} runs: ${v.timing.inconclusive}`);
    }
  }
  return run.variants.filter((v) => v.outcome === 'as-expected');
}
