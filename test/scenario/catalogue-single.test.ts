import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { checkHistory, describeVerdict } from '../../src/core/scenario/checker.js';
import { matchesExpectation } from '../../src/core/scenario/verdict.js';
import { proxyHook } from '../../src/sandbox/proxy-hook.js';
import { resolveScenario } from '../../src/scenario/load.js';
import { runVariant } from '../../src/scenario/runner.js';
import { useSandbox } from '../helpers/sandbox.js';
import { SINGLE_NODE_LOCKS } from './catalogue-groups.js';
import { dump } from './fixture.js';

// The shipped single-node scenarios of the "single" group (S5, S12, S14, S16), every variant, on
// one sandbox started as `scenario run` starts theirs (with the fault proxy, for S12's latency):
// each reaches the verdict its file expects.

describe('shipped single-node scenarios (watchdog, reentrancy, refresh, key collision)', () => {
  const fx = useSandbox({ topology: 'single', name: 'catalogue-single', proxy: proxyHook({ mode: 'in-process' }) });

  let redis: Redis | undefined;
  const node = (): Redis => (redis ??= fx.client(fx.sandbox.nodes[0]!.port));

  it.each(SINGLE_NODE_LOCKS)('%s: every variant matches its expectation', async (name) => {
    const scenario = await resolveScenario(name);
    expect(scenario.sandbox.topology).toBe('single');
    for (const variant of scenario.variants) {
      const { history } = await runVariant(scenario, variant, { sandbox: fx.sandbox });
      const verdict = checkHistory(history, { starvationMs: scenario.starvationMs });
      const why = `${variant.name}: ${describeVerdict(verdict).join('; ')}\n${dump(history)}`;
      expect(matchesExpectation(verdict, variant.expect), why).toBe(true);
      // No lock in this group may touch application data: lock-key-collision's cart is still there.
      for (const seed of scenario.seed) {
        if (seed.type === 'string') expect(await node().get(seed.key), why).toBe(seed.value);
      }
    }
  });
});
