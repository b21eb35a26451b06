import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { proxyHook } from '../../src/sandbox/proxy-hook.js';
import { resolveScenario } from '../../src/scenario/load.js';
import { useSandbox } from '../helpers/sandbox.js';
import { SINGLE_NODE_LOCKS } from './catalogue-groups.js';
import { expectNoWrongVerdict } from './catalogue-run.js';

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
    await expectNoWrongVerdict(scenario, fx.sandbox);
    // No lock in this group may touch application data: after the last variant, lock-key-collision's cart is still there.
    for (const seed of scenario.seed) {
      if (seed.type === 'string') expect(await node().get(seed.key), scenario.name).toBe(seed.value);
    }
  });
});
