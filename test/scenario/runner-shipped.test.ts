import { describe, expect, it } from 'vitest';
import { checkHistory, describeVerdict } from '../../src/core/scenario/checker.js';
import { matchesExpectation } from '../../src/core/scenario/verdict.js';
import { resolveScenario } from '../../src/scenario/load.js';
import { runVariant } from '../../src/scenario/runner.js';
import { useSandbox } from '../helpers/sandbox.js';
import { SINGLE_NODE_BASICS } from './catalogue-groups.js';
import { dump } from './fixture.js';

// The shipped single-node scenarios, every variant, on one sandbox: each reaches the verdict
// its file expects (what `scenario run` exits 7 on).

describe('shipped scenarios on a single node', () => {
  const fx = useSandbox({ topology: 'single', name: 'shipped' });

  it.each(SINGLE_NODE_BASICS)('%s: every variant matches its expectation', async (name) => {
    const scenario = await resolveScenario(name);
    expect(scenario.sandbox.topology).toBe('single');
    for (const variant of scenario.variants) {
      const { history } = await runVariant(scenario, variant, { sandbox: fx.sandbox });
      const verdict = checkHistory(history, { starvationMs: scenario.starvationMs });
      const why = `${variant.name}: ${describeVerdict(verdict).join('; ')}\n${dump(history)}`;
      expect(matchesExpectation(verdict, variant.expect), why).toBe(true);
    }
  });
});
