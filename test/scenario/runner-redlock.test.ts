import { describe, expect, it } from 'vitest';
import { proxyHook } from '../../src/sandbox/proxy-hook.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, runOnTime, scenario, servers, step } from './fixture.js';

const sandbox = { topology: 'redlock' as const, nodes: 3, fakeClock: false, config: {} };

describe('runVariant on a Redlock sandbox', () => {
  const fx = useSandbox({ topology: 'redlock', nodes: 3, name: 'redlock', proxy: proxyHook({ mode: 'in-process' }) });

  it('reach: each client talks to its own nodes, and only one of two overlapping views gets a majority', async () => {
    const s = scenario({
      sandbox,
      lock: { kind: 'redlock', key: 'orders' },
      clients: [
        { name: 'A', reach: ['n1', 'n2'], stopOnLost: false },
        { name: 'B', reach: ['n2', 'n3'], stopOnLost: false },
      ],
      steps: [acquire('A', 0, { leaseMs: 1000 }), step('A', 50, { do: 'enter' }), acquire('B', 100, { leaseMs: 1000 })],
    });
    const { history } = await runOnTime(s, 'unsafe', { sandbox: fx.sandbox });
    const info = dump(history);
    expect(done(history, 'A', 'acquire').phase, info).toBe('ok');
    expect(done(history, 'A', 'enter').held, info).toBe(true);
    expect(done(history, 'B', 'acquire'), info).toMatchObject({ phase: 'fail', detail: expect.stringMatching(/^held by A \(\d+ ms left\); 1 of 3 nodes$/) });
    const last = new Map(servers(history).map((e) => [e.node, e.holders.join()]));
    expect(Object.fromEntries(last), info).toEqual({ n1: 'A', n2: 'A', n3: '' });
    expect(history.nodes).toEqual(['n1', 'n2', 'n3']);
  });

  it('S13: replies read after a pause; the validity check refuses the lock, trusting it gives two holders', async () => {
    const s13 = scenario({
      sandbox,
      lock: { kind: 'redlock', key: 'orders' },
      variants: [
        { name: 'unsafe', description: 'trusts the lock', expect: [] },
        { name: 'fixed', description: 'checks validity', expect: [] },
      ],
      steps: [
        ...['n1', 'n2', 'n3'].map((node) => ({ at: 0, fault: 'latency' as const, node, value: '60ms' })),
        acquire('A', 20, { leaseMs: 300, checkValidity: false, only: ['unsafe'] }),
        acquire('A', 20, { leaseMs: 300, checkValidity: true, only: ['fixed'] }),
        // A wakes at 0.94 s: ~300 ms after B's acquire (at 0.45 s, three 60 ms round trips away) is
        // done, room enough for a busy machine (at 0.64 s two hogs per core made B finish after A woke).
        step('A', 40, { do: 'pause', forMs: 900 }),
        acquire('B', 450, { leaseMs: 1000 }),
      ],
    });
    const unsafe = (await runOnTime(s13, 'unsafe', { sandbox: fx.sandbox })).history;
    let info = dump(unsafe);
    const a = done(unsafe, 'A', 'acquire');
    expect(a, info).toMatchObject({ phase: 'ok', leaseMs: 300, detail: expect.stringMatching(/^validity -\d+ ms, trusted anyway$/) });
    expect(a.t, info).toBeGreaterThanOrEqual(938);
    const b = done(unsafe, 'B', 'acquire');
    expect(b.phase, info).toBe('ok');
    expect(b.t, info).toBeLessThan(a.t);

    const fixed = (await runOnTime(s13, 'fixed', { sandbox: fx.sandbox })).history;
    info = dump(fixed);
    expect(done(fixed, 'A', 'acquire'), info).toMatchObject({ phase: 'fail', detail: expect.stringMatching(/validity -\d+ ms$/) });
    expect(done(fixed, 'B', 'acquire').phase, info).toBe('ok');
  });

  it('S7 / S8: a clock jump or an empty restart on one node gives B a second majority', async () => {
    const s = scenario({
      sandbox,
      lock: { kind: 'redlock', key: 'orders' },
      clients: [
        { name: 'A', reach: ['n1', 'n2'], stopOnLost: false },
        { name: 'B', reach: ['n2', 'n3'], stopOnLost: false },
      ],
      variants: [
        { name: 'clock', description: 'n2 jumps ahead', expect: [] },
        { name: 'amnesia', description: 'n2 restarts empty', expect: [] },
      ],
      steps: [
        acquire('A', 0, { leaseMs: 2000 }),
        step('A', 20, { do: 'enter' }),
        { at: 100, fault: 'clock', node: 'n2', value: '+5s', only: ['clock'] },
        { at: 100, fault: 'restart', node: 'n2', amnesia: true, only: ['amnesia'] },
        acquire('B', 300, { leaseMs: 2000 }),
        step('B', 320, { do: 'enter' }),
      ],
    });
    for (const variant of ['clock', 'amnesia']) {
      const { history } = await runOnTime(s, variant, { sandbox: fx.sandbox });
      const info = dump(history);
      const fault = history.events.filter((e) => e.kind === 'fault').map((e) => (e.kind === 'fault' ? `${e.node} ${e.verb} ${e.phase}` : ''));
      expect(fault, info).toEqual([`n2 ${variant === 'clock' ? 'clock' : 'restart'} invoke`, `n2 ${variant === 'clock' ? 'clock' : 'restart'} ok`]);
      expect(done(history, 'B', 'acquire').phase, info).toBe('ok');
      expect(done(history, 'A', 'enter').held, info).toBe(true);
      expect(done(history, 'B', 'enter').held, info).toBe(true);
      const last = new Map(servers(history).map((e) => [e.node, e.holders.join()]));
      expect(Object.fromEntries(last), info).toEqual({ n1: 'A', n2: 'B', n3: 'B' });
    }
  });
});
