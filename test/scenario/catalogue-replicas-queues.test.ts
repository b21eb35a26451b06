import { describe, expect, it } from 'vitest';
import type { FaultEvent, History } from '../../src/core/scenario/history.js';
import { resolveScenario } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/model.js';
import type { SandboxHandle } from '../../src/sandbox/handle.js';
import { useSandbox } from '../helpers/sandbox.js';
import { SENTINEL, SINGLE_NODE_QUEUES } from './catalogue-groups.js';
import { expectNoWrongVerdict } from './catalogue-run.js';
import { dump } from './fixture.js';

// The shipped scenarios of the replicas-and-queues group, every variant, one sandbox per topology:
// each reaches the verdict its file expects (what `scenario run` exits 7 on).

/** The histories of the variants that reached their verdict on time (none may be wrong). */
async function runAll(scenario: Scenario, sandbox: SandboxHandle): Promise<Map<string, History>> {
  return new Map((await expectNoWrongVerdict(scenario, sandbox)).map((v) => [v.variant, v.history]));
}

const faults = (h: History, verb: string): FaultEvent[] => h.events.filter((e): e is FaultEvent => e.kind === 'fault' && e.verb === verb);

describe('replicas-queues scenarios on a Sentinel sandbox', () => {
  const fx = useSandbox({ topology: 'sentinel', name: 'cat-failover' });

  it.each(SENTINEL)('%s: every variant matches; each stalls the replicas of its time and fails over on time', async (name) => {
    const scenario = await resolveScenario(name);
    const histories = await runAll(scenario, fx.sandbox);
    for (const [variant, history] of histories) {
      const info = `${variant}\n${dump(history)}`;
      // `node: replicas` stalled exactly the two nodes that were replicas (after the first
      // variant's failover, not n2 and n3 any more), never the primary the lock was taken on.
      const stalled = faults(history, 'stall-replication').filter((e) => e.phase === 'ok').map((e) => e.node);
      const primary = history.events.find((e) => e.kind === 'server')?.node;
      expect(stalled.sort(), info).toEqual(['n1', 'n2', 'n3'].filter((n) => n !== primary));
      // The second variant waited out Sentinel's pause between failovers before its clock
      // started, so its failover began at its step's time, not seconds later.
      const [invoke, ok] = faults(history, 'failover');
      expect(invoke!.t, info).toBeLessThan(600);
      expect(ok!.t - invoke!.t, info).toBeLessThan(3500);
    }
  }, 45_000);
});

describe('replicas-queues scenarios on a single node', () => {
  const fx = useSandbox({ topology: 'single', name: 'cat-queues' });

  it.each(SINGLE_NODE_QUEUES)(
    '%s: every variant matches its expectation',
    async (name) => {
      const scenario = await resolveScenario(name);
      expect(scenario.sandbox.topology).toBe('single');
      await runAll(scenario, fx.sandbox);
    },
    30_000,
  );
});
