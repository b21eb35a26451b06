import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/core/scenario/checker.js';
import { proxyHook } from '../../src/sandbox/proxy-hook.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, invoke, notes, runOnTime, scenario, step } from './fixture.js';

describe('runVariant: the demo resource and slow replies', () => {
  const fx = useSandbox({ topology: 'single', name: 'resource', proxy: proxyHook({ mode: 'in-process' }) });

  it('S4: a paused holder writes with a stale token; the fenced register rejects it', async () => {
    const s4 = scenario({
      lock: { kind: 'fenced', key: 'orders' },
      resource: { fencing: 'off' },
      variants: [
        { name: 'unsafe', description: 'no fencing', expect: ['stale-write'] },
        { name: 'fixed', description: 'fenced register', expect: [], resource: { fencing: 'strict' } },
      ],
      steps: [
        acquire('A', 0, { leaseMs: 300 }),
        step('A', 50, { do: 'pause', forMs: 500 }),
        step('A', 60, { do: 'write', value: 1 }),
        acquire('B', 400, { leaseMs: 1000 }),
        step('B', 450, { do: 'write', value: 2 }),
      ],
    });
    const unsafe = await runOnTime(s4, 'unsafe', { sandbox: fx.sandbox });
    if (!unsafe) return;
    let info = dump(unsafe);
    const tokenA = done(unsafe, 'A', 'acquire').token!;
    expect(done(unsafe, 'B', 'acquire').token, info).toBe(tokenA + 1);
    expect(done(unsafe, 'A', 'write'), info).toMatchObject({ token: tokenA, accepted: true, held: false });
    expect(unsafe.events.at(-1), info).toMatchObject({ kind: 'end', register: { value: 1, writer: 'A', token: tokenA } });
    expect(checkHistory(unsafe, { starvationMs: 5000 }).violations.map((v) => v.kind), info).toContain('stale-write');

    const fixed = await runOnTime(s4, 'fixed', { sandbox: fx.sandbox });

    if (!fixed) return;
    info = dump(fixed);
    const a = done(fixed, 'A', 'acquire').token!;
    expect(done(fixed, 'A', 'write'), info).toMatchObject({ token: a, accepted: false, detail: `token ${a} <= ${a + 1} seen` });
    expect(fixed.events.at(-1), info).toMatchObject({ kind: 'end', register: { value: 2, writer: 'B', token: a + 1 } });
    expect(checkHistory(fixed, { starvationMs: 5000 }).violations.map((v) => v.kind), info).not.toContain('stale-write');
  });

  it('incr: two increments whose read..write gaps overlap lose one', async () => {
    const s = scenario({
      steps: [step('A', 0, { do: 'incr', gapMs: 200 }), step('B', 100, { do: 'incr', gapMs: 200 }), step('B', 400, { do: 'incr', gapMs: 0 })],
    });
    const history = await runOnTime(s, 'unsafe', { sandbox: fx.sandbox });
    if (!history) return;
    const info = dump(history);
    expect(done(history, 'A', 'incr'), info).toMatchObject({ read: 0, value: 1, held: false });
    expect(done(history, 'B', 'incr'), info).toMatchObject({ read: 0, value: 1 });
    expect(done(history, 'B', 'incr', 1), info).toMatchObject({ read: 1, value: 2 });
    expect(history.events.at(-1), info).toMatchObject({ kind: 'end', counter: 2 });
  });

  it('S12: a reply slower than the client timeout makes it resend, and a reentrant lock is held twice', async () => {
    const s12 = scenario({
      lock: { kind: 'reentrant', key: 'orders' },
      steps: [
        { at: 0, fault: 'latency', node: 'n1', value: '200ms' },
        acquire('A', 20, { leaseMs: 3000, mode: 'resend-on-timeout', timeoutMs: 150 }),
        { at: 700, fault: 'heal', node: 'n1' },
      ],
    });
    const history = await runOnTime(s12, 'unsafe', { sandbox: fx.sandbox });
    if (!history) return;
    const info = dump(history);
    const ok = done(history, 'A', 'acquire');
    expect(ok, info).toMatchObject({ phase: 'ok', detail: 'hold count 2' });
    // Two round trips of 200 ms, the second sent after the 150 ms timeout.
    expect(ok.t - invoke(history, 'A', 'acquire').t, info).toBeGreaterThanOrEqual(340);
    expect(notes(history, 'A'), info).toEqual(['no reply within 150 ms: sending the acquire again']);
    const fault = history.events.filter((e) => e.kind === 'fault').map((e) => `${e.kind === 'fault' ? `${e.node} ${e.verb} ${e.phase}` : ''}`);
    expect(fault, info).toEqual(['n1 latency invoke', 'n1 latency ok', 'n1 heal invoke', 'n1 heal ok']);
    const fields = await fx.client(fx.sandbox.nodes[0]!.port).hgetall('orders');
    expect(Object.values(fields)).toEqual(['2']);
  });
});
