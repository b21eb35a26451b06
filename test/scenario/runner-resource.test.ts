import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/core/scenario/checker.js';
import { proxyHook } from '../../src/sandbox/proxy-hook.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, invoke, notes, runOnTime, scenario, step } from './fixture.js';
import { runVariant } from '../../src/scenario/runner.js';

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

  it("a client's pause that meets its own acquire unanswered makes the run inconclusive, naming the acquire", async () => {
    // A's acquire (due 10 ms) is dispatched 60 ms late, and replies come 300 ms late through the
    // proxy (set outside the timetable, as a slow network would be): the acquire is unanswered
    // when A's pause begins at 150 ms, so A would learn of its lock after the pause. Each other
    // measure stays inside the 100 ms tolerance (dispatch 60 ms late, round trip 80 ms until the
    // pause): only the pause counting A's unfinished step from its planned time sees the 140 ms.
    const s = scenario({
      steps: [{ at: 0, note: 'start' }, acquire('A', 10, { leaseMs: 10_000 }), step('A', 150, { do: 'pause', forMs: 100 })],
    });
    try {
      const result = await runVariant(s, 'unsafe', {
        sandbox: fx.sandbox,
        stall: { step: 2, ms: 60 },
        beforeStep: async (_step, index) => {
          if (index === 1) await fx.sandbox.latency('n1', 300);
        },
      });
      const info = `${JSON.stringify(result.timing)}\n${dump(result.history)}`;
      expect(result.timing.toleranceMs, info).toBe(100);
      expect(result.timing.inconclusive, info).toMatch(/^step 2 \(A acquire\), still unanswered when step 3 \(A pause\) began, ran \d+ ms late: the machine was too busy/);
    } finally {
      await fx.sandbox.heal('n1');
    }
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
