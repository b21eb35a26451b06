import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, runOnTime, scenario, servers } from './fixture.js';

describe('runVariant on a replicated sandbox', () => {
  const fx = useSandbox({ topology: 'replicated', name: 'replicas' });

  it('waitReplicas: WAIT on the writing connection sees a stalled replica, and the lock is given back', async () => {
    const s = scenario({
      sandbox: { topology: 'replicated', fakeClock: false, config: {} },
      lock: { kind: 'reentrant', key: 'orders' },
      variants: [
        { name: 'stalled', description: 'replication stalled', expect: [] },
        { name: 'healthy', description: 'replication flows', expect: [] },
      ],
      steps: [
        { at: 0, fault: 'stall-replication', node: 'n2', forMs: 1000, only: ['stalled'] },
        { at: 0, fault: 'stall-replication', node: 'n3', forMs: 1000, only: ['stalled'] },
        acquire('A', 100, { leaseMs: 2000, waitReplicas: 1, timeoutMs: 100 }),
      ],
    });
    const stalled = await runOnTime(s, 'stalled', { sandbox: fx.sandbox });
    if (!stalled) return;
    let info = dump(stalled);
    expect(done(stalled, 'A', 'acquire'), info).toMatchObject({
      phase: 'fail',
      detail: 'only 0 of 1 replicas acknowledged the lock (WAIT): released it',
    });
    expect(servers(stalled).at(-1)?.holders, info).toEqual([]);

    // The next variant starts with the stall healed: the same acquire is acknowledged.
    const healthy = await runOnTime(s, 'healthy', { sandbox: fx.sandbox });
    if (!healthy) return;
    info = dump(healthy);
    expect(done(healthy, 'A', 'acquire').phase, info).toBe('ok');
    expect(servers(healthy).at(-1), info).toMatchObject({ node: 'n1', holders: ['A'] });
  });
});
