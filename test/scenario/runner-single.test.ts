import { describe, expect, it } from 'vitest';
import { runVariant } from '../../src/scenario/runner.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, scenario, servers, step } from './fixture.js';

// Runner behaviour the single-node catalogue (S14, S16) needs: a variant's own lock key.

describe('runVariant: per-variant lock key', () => {
  const fx = useSandbox({ topology: 'single', name: 'runner-single' });

  it("a variant's lock key replaces the scenario's for the clients and the observer; the seed stays where it was", async () => {
    const s = scenario({
      seed: [{ type: 'string', key: 'orders', value: 'application data' }],
      variants: [
        { name: 'shared', description: 'the lock on the data key', expect: [] },
        { name: 'own', description: 'a namespaced key', expect: [], lock: { key: 'lock:orders' } },
      ],
      steps: [acquire('A', 0, { leaseMs: 2000 }), step('A', 100, { do: 'enter' })],
    });
    const node = fx.client(fx.sandbox.nodes[0]!.port);

    const shared = (await runVariant(s, 'shared', { sandbox: fx.sandbox })).history;
    expect(done(shared, 'A', 'acquire'), dump(shared)).toMatchObject({ phase: 'fail', detail: 'held by application data (no TTL)' });

    const own = (await runVariant(s, 'own', { sandbox: fx.sandbox })).history;
    const info = dump(own);
    expect(done(own, 'A', 'acquire').phase, info).toBe('ok');
    expect(done(own, 'A', 'enter').held, info).toBe(true);
    expect(servers(own).some((e) => e.holders.includes('A')), info).toBe(true);
    expect(await node.get('orders')).toBe('application data');
    expect(await node.pttl('lock:orders')).toBeGreaterThan(0);
  });
});
