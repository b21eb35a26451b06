import { describe, expect, it } from 'vitest';
import { runVariant } from '../../src/scenario/runner.js';
import { useSandbox } from '../helpers/sandbox.js';
import { acquire, done, dump, scenario, step } from './fixture.js';

// What a run leaves behind (nothing), how it fails, and how speed scales it.

describe('runVariant: lifecycle', () => {
  const fx = useSandbox({ topology: 'single', name: 'lifecycle' });
  const scenarioClients = async (): Promise<string[]> => {
    const list = String(await fx.client(fx.sandbox.nodes[0]!.port).call('CLIENT', 'LIST'));
    return list.split('\n').filter((l) => /name=redlock-cli:scenario/.test(l));
  };

  it('a fault the sandbox refuses fails the run with the step named, and closes every connection', async () => {
    const s = scenario({
      clients: ['A'],
      steps: [acquire('A', 0, { watchdogLeaseMs: 300 }), { at: 50, fault: 'latency', node: 'n1', value: '100ms' }, step('A', 400, { do: 'enter' })],
    });
    const events: string[] = [];
    await expect(runVariant(s, 'unsafe', { sandbox: fx.sandbox, onEvent: (e) => events.push(e.kind === 'fault' ? `fault ${e.phase}` : e.kind) })).rejects.toThrow(
      /^fault "latency n1" at 50 ms failed: latency works through the fault proxy in front of n1/,
    );
    expect(events).toContain('fault fail');
    expect(await scenarioClients()).toEqual([]);
  });

  it('an abort interrupts the run and leaves nothing running', async () => {
    const s = scenario({ clients: ['A'], steps: [acquire('A', 0, { watchdogLeaseMs: 300 }), step('A', 5000, { do: 'release', mode: 'safe' })] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = performance.now();
    await expect(runVariant(s, 'unsafe', { sandbox: fx.sandbox, signal: controller.signal })).rejects.toThrow(/interrupted/);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await scenarioClients()).toEqual([]);
    // The watchdog is gone too: nobody renews the lock, which runs out.
    await new Promise((r) => setTimeout(r, 400));
    expect(await fx.client(fx.sandbox.nodes[0]!.port).exists('orders')).toBe(0);
  });

  it('speed 2 runs the scenario in half the time and records it in scenario time', async () => {
    const s = scenario({
      settleMs: 100,
      steps: [acquire('A', 0, { leaseMs: 400 }), acquire('B', 600, { leaseMs: 400 }), step('B', 800, { do: 'enter' })],
    });
    const { history, durationMs } = await runVariant(s, 'unsafe', { sandbox: fx.sandbox, speed: 2 });
    const info = dump(history);
    // 900 ms of scenario in ~450 ms (plus preparing the sandbox).
    expect(durationMs, info).toBeLessThan(850);
    expect(done(history, 'A', 'acquire').leaseMs, info).toBe(400);
    // A's lease of 400 scenario ms ran out (200 real ms) before B came at 600.
    expect(done(history, 'B', 'acquire').phase, info).toBe('ok');
    expect(done(history, 'B', 'enter').t, info).toBeGreaterThanOrEqual(799);
    expect(history.events.at(-1)!.t, info).toBeGreaterThanOrEqual(899);
  });
});
