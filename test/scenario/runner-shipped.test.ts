import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/scenario/load.js';
import { useSandbox } from '../helpers/sandbox.js';
import { SINGLE_NODE_BASICS } from './catalogue-groups.js';
import { expectNoWrongVerdict } from './catalogue-run.js';

// The shipped single-node scenarios, every variant, on one sandbox: each reaches the verdict
// its file expects (what `scenario run` exits 7 on), or says the machine was too busy to tell.

describe('shipped scenarios on a single node', () => {
  const fx = useSandbox({ topology: 'single', name: 'shipped' });

  it.each(SINGLE_NODE_BASICS)('%s: every variant matches its expectation', async (name) => {
    const scenario = await resolveScenario(name);
    expect(scenario.sandbox.topology).toBe('single');
    await expectNoWrongVerdict(scenario, fx.sandbox);
  });
});
