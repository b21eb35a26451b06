import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/core/scenario/checker.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, invoke, notes, runOnTime, scenario, servers, step } from './fixture.js';

// Runner behaviour the single-node catalogue (S14, S16) needs: a variant's own lock key, a renewal
// from a refresh timer beside the client's work, and an increment abandoned when the lock is lost.

describe('runVariant: lock key per variant, background renewals, abandoned increments', () => {
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

    const shared = await runOnTime(s, 'shared', { sandbox: fx.sandbox });

    if (!shared) return;
    expect(done(shared, 'A', 'acquire'), dump(shared)).toMatchObject({ phase: 'fail', detail: 'held by application data (no TTL)' });

    const own = await runOnTime(s, 'own', { sandbox: fx.sandbox });

    if (!own) return;
    const info = dump(own);
    expect(done(own, 'A', 'acquire').phase, info).toBe('ok');
    expect(done(own, 'A', 'enter').held, info).toBe(true);
    expect(servers(own).some((e) => e.holders.includes('A')), info).toBe(true);
    expect(await node.get('orders')).toBe('application data');
    expect(await node.pttl('lock:orders')).toBeGreaterThan(0);
  });

  it('a background renew runs at its time while an increment waits in its gap, and waits out a pause', async () => {
    const s = scenario({
      clients: ['A'],
      variants: [
        { name: 'running', description: 'A keeps running', expect: [] },
        { name: 'paused', description: 'A stalls past its lease', expect: [] },
      ],
      steps: [
        acquire('A', 0, { leaseMs: 300 }),
        step('A', 10, { do: 'incr', gapMs: 400 }),
        step('A', 50, { do: 'pause', forMs: 300 }, ['paused']),
        step('A', 100, { do: 'renew', mode: 'safe', leaseMs: 1000, background: true }),
      ],
    });
    const running = await runOnTime(s, 'running', { sandbox: fx.sandbox });
    if (!running) return;
    let info = dump(running);
    // Queued, it would have run after the increment (~410 ms), when the 300 ms lease was gone.
    expect(invoke(running, 'A', 'renew').t, info).toBeLessThan(250);
    expect(done(running, 'A', 'renew'), info).toMatchObject({ phase: 'ok', leaseMs: 1000 });
    expect(done(running, 'A', 'incr'), info).toMatchObject({ phase: 'ok', held: true });
    expect(done(running, 'A', 'incr').t, info).toBeGreaterThan(done(running, 'A', 'renew').t);

    const paused = await runOnTime(s, 'paused', { sandbox: fx.sandbox });

    if (!paused) return;
    info = dump(paused);
    // Only after the pause (at ~349 ms; its timer may fire a fraction of a ms early).
    expect(invoke(paused, 'A', 'renew').t, info).toBeGreaterThanOrEqual(347);
    expect(done(paused, 'A', 'renew'), info).toMatchObject({ phase: 'fail', detail: 'lock lost: not the owner any more' });
  });

  it('a stop-on-lost client told during its increment that the lock is gone abandons the write: no lost update', async () => {
    const s = scenario({
      clients: [{ name: 'A', stopOnLost: true }, 'B'],
      steps: [
        acquire('A', 0, { leaseMs: 300 }),
        step('A', 10, { do: 'incr', gapMs: 500 }),
        acquire('B', 350, { leaseMs: 1000 }),
        step('B', 400, { do: 'incr', gapMs: 0 }),
      ],
    });
    const history = await runOnTime(s, 'unsafe', { sandbox: fx.sandbox });
    if (!history) return;
    const info = dump(history);
    expect(notes(history, 'A'), info).toContain('lock lost: the lease ran out');
    expect(done(history, 'A', 'incr'), info).toMatchObject({ phase: 'fail', read: 0, detail: 'lock lost: abandoned, nothing written' });
    expect(done(history, 'B', 'incr'), info).toMatchObject({ phase: 'ok', read: 0, value: 1 });
    expect(history.events.at(-1), info).toMatchObject({ kind: 'end', counter: 1 });
    expect(checkHistory(history, { starvationMs: 5000 }).violations.map((v) => v.kind), info).not.toContain('lost-update');
  });
});
