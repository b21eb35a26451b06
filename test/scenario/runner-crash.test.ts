import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/core/scenario/checker.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, invoke, notes, ops, runOnTime, scenario, servers, step } from './fixture.js';

describe('runVariant: crashes', () => {
  const fx = useSandbox({ topology: 'single', name: 'crash' });

  it('a crash between SETNX and EXPIRE leaves a lock without TTL that blocks everyone', async () => {
    const s2 = scenario({
      variants: [
        { name: 'unsafe', description: 'two commands', expect: ['deadlock'] },
        { name: 'fixed', description: 'atomic SET NX PX', expect: [] },
      ],
      starvationMs: 600,
      steps: [
        acquire('A', 0, { leaseMs: 300, mode: 'setnx-then-expire', gapMs: 200, only: ['unsafe'] }),
        acquire('A', 0, { leaseMs: 300, only: ['fixed'] }),
        step('A', 100, { do: 'crash' }),
        step('A', 150, { do: 'release', mode: 'safe' }),
        acquire('B', 150, { leaseMs: 300, waitMs: 900 }),
      ],
    });
    const unsafe = await runOnTime(s2, 'unsafe', { sandbox: fx.sandbox });
    if (!unsafe) return;
    let info = dump(unsafe);
    // The key is there with no TTL, and stays so: B waits in vain.
    expect(servers(unsafe).some((e) => e.holders.join() === 'A' && e.ttlMs === -1), info).toBe(true);
    expect(servers(unsafe).at(-1), info).toMatchObject({ holders: ['A'], ttlMs: -1 });
    // A's acquire never completed: it died in the gap.
    expect(ops(unsafe).filter((e) => e.client === 'A' && e.op === 'acquire').map((e) => e.phase), info).toEqual(['invoke']);
    expect(done(unsafe, 'A', 'crash').phase, info).toBe('ok');
    expect(notes(unsafe, 'A'), info).toContain('skipped release: A crashed');
    const b = done(unsafe, 'B', 'acquire');
    expect(b.phase, info).toBe('fail');
    expect(b.detail, info).toBe('held by A (no TTL)');
    expect(b.t - invoke(unsafe, 'B', 'acquire').t, info).toBeGreaterThanOrEqual(890);
    expect(checkHistory(unsafe, { starvationMs: 600 }).violations.map((v) => v.kind), info).toEqual(['deadlock']);
    expect(await fx.client(fx.sandbox.nodes[0]!.port).pttl('orders')).toBe(-1);

    const fixed = await runOnTime(s2, 'fixed', { sandbox: fx.sandbox });

    if (!fixed) return;
    info = dump(fixed);
    expect(done(fixed, 'A', 'acquire').phase, info).toBe('ok');
    expect(done(fixed, 'B', 'acquire').phase, info).toBe('ok');
    expect(done(fixed, 'B', 'acquire').t, info).toBeGreaterThanOrEqual(300);
    expect(servers(fixed).every((e) => e.ttlMs !== -1), info).toBe(true);
  });

  it('a crash aborts an acquire that is waiting, and later steps are skipped', async () => {
    const s = scenario({
      lock: { kind: 'reentrant', key: 'orders' },
      steps: [
        acquire('A', 0, { leaseMs: 800 }),
        acquire('B', 50, { leaseMs: 800, waitMs: 2000 }),
        step('B', 60, { do: 'write', value: 2 }),
        step('B', 200, { do: 'crash' }),
        step('A', 400, { do: 'release', mode: 'safe' }),
      ],
    });
    const started = performance.now();
    const history = await runOnTime(s, 'unsafe', { sandbox: fx.sandbox });
    if (!history) return;
    const info = dump(history);
    expect(performance.now() - started, info).toBeLessThan(1500);
    expect(ops(history).filter((e) => e.client === 'B' && e.op === 'acquire').map((e) => e.phase), info).toEqual(['invoke']);
    expect(notes(history, 'B'), info).toEqual(['skipped write: B crashed']);
    expect(done(history, 'A', 'release').phase, info).toBe('ok');
    // Nobody took the lock after A released it: B was dead.
    expect(servers(history).at(-1)?.holders, info).toEqual([]);
  });
});
