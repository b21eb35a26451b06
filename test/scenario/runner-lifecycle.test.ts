import { createHook } from 'node:async_hooks';
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
      steps: [acquire('A', 0, { watchdogLeaseMs: 300 }), { at: 50, fault: 'stall-replication', node: 'n1' }, step('A', 400, { do: 'enter' })],
    });
    const events: string[] = [];
    await expect(runVariant(s, 'unsafe', { sandbox: fx.sandbox, onEvent: (e) => events.push(e.kind === 'fault' ? `fault ${e.phase}` : e.kind) })).rejects.toThrow(
      /^fault "stall-replication n1" at 50 ms failed: n1: stall-replication needs a replica, and this node is a primary/,
    );
    expect(events).toContain('fault fail');
    expect(await scenarioClients()).toEqual([]);
  });

  it('refuses a sandbox the scenario does not describe before starting anything', async () => {
    const onRedlock = scenario({ sandbox: { topology: 'redlock', nodes: 3, fakeClock: false, config: {} }, steps: [acquire('A', 0, { leaseMs: 300 })] });
    await expect(runVariant(onRedlock, 'unsafe', { sandbox: fx.sandbox })).rejects.toThrow(
      'scenario test runs on a redlock sandbox with 3 nodes; sandbox "lifecycle" is single with 1 redis nodes',
    );
    const slow = scenario({ steps: [{ at: 0, fault: 'latency', node: 'n1', value: '100ms' }] });
    await expect(runVariant(slow, 'unsafe', { sandbox: fx.sandbox })).rejects.toThrow(/need the fault proxy: sandbox "lifecycle" was started without it/);
  });

  it('an abort interrupts the run and leaves nothing running', async () => {
    const s = scenario({
      clients: ['A', 'B'],
      steps: [
        acquire('A', 0, { watchdogLeaseMs: 300 }),
        step('B', 0, { do: 'pause', forMs: 5000 }),
        acquire('B', 10, { leaseMs: 300, waitMs: 5000 }),
        step('A', 5000, { do: 'release', mode: 'safe' }),
      ],
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    // Every timer the run creates must be cleared (or have fired) by the time it returns.
    const live = new Set<number>();
    const stacks = new Map<number, string>();
    const hook = createHook({
      init: (id, type) => {
        if (type !== 'Timeout') return;
        live.add(id);
        stacks.set(id, new Error().stack!.split('\n').slice(5, 9).join('\n'));
      },
      destroy: (id) => void live.delete(id),
    }).enable();
    const started = performance.now();
    await expect(runVariant(s, 'unsafe', { sandbox: fx.sandbox, signal: controller.signal })).rejects.toThrow(/interrupted/);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await scenarioClients()).toEqual([]);
    // No schedule, pause, watchdog or poll timer is left.
    await new Promise((r) => setImmediate(r));
    hook.disable();
    expect([...live].map((id) => stacks.get(id))).toEqual([]);
    // The watchdog is gone too: nobody renews the lock, which runs out.
    await new Promise((r) => setTimeout(r, 400));
    expect(await fx.client(fx.sandbox.nodes[0]!.port).exists('orders')).toBe(0);
  });

  it('speed 2 runs the scenario in half the time and records it in scenario time', async () => {
    const s = scenario({
      settleMs: 400,
      steps: [acquire('A', 0, { leaseMs: 1600 }), acquire('B', 2400, { leaseMs: 1600 }), step('B', 3200, { do: 'enter' })],
    });
    const { history, durationMs } = await runVariant(s, 'unsafe', { sandbox: fx.sandbox, speed: 2 });
    const info = dump(history);
    // 3.6 s of scenario (steps and settling) in ~1.8 s: at speed 1 it could not end before 3.6 s;
    // the 1.7 s between is room for a loaded machine.
    expect(durationMs, info).toBeLessThan(3500);
    expect(done(history, 'A', 'acquire').leaseMs, info).toBe(1600);
    // A's lease of 1600 scenario ms ran out (800 real ms) before B came at 2400.
    expect(done(history, 'B', 'acquire').phase, info).toBe('ok');
    // At its step time, not before: a timer may fire a fraction of a real ms early by the
    // performance clock, which speed 2 doubles in scenario time.
    expect(done(history, 'B', 'enter').t, info).toBeGreaterThanOrEqual(3197);
    expect(history.events.at(-1)!.t, info).toBeGreaterThanOrEqual(3597);
  });

  it("seeds keys before the clock starts and puts a variant's settings back for the next one", async () => {
    const s = scenario({
      clients: ['A'],
      seed: [
        { type: 'string', key: 'orders', value: 'application data' },
        { type: 'hash', key: 'orders:meta', fields: { owner: 'billing' } },
      ],
      sandbox: { topology: 'single', fakeClock: false, config: { 'slowlog-log-slower-than': '5000' } },
      variants: [
        { name: 'tuned', description: 'its own setting', expect: [], sandbox: { config: { 'slowlog-log-slower-than': '7000' } } },
        { name: 'plain', description: 'the scenario setting', expect: [] },
      ],
      steps: [acquire('A', 0, { leaseMs: 300 })],
    });
    const node = fx.client(fx.sandbox.nodes[0]!.port);
    const setting = async (): Promise<unknown> => ((await node.config('GET', 'slowlog-log-slower-than')) as string[])[1];
    const before = await setting();

    const tuned = (await runVariant(s, 'tuned', { sandbox: fx.sandbox })).history;
    expect(done(tuned, 'A', 'acquire'), dump(tuned)).toMatchObject({ phase: 'fail', detail: 'held by application data (no TTL)' });
    expect(await setting()).toBe('7000');
    expect(await node.hgetall('orders:meta')).toEqual({ owner: 'billing' });

    await runVariant(s, 'plain', { sandbox: fx.sandbox });
    expect(await setting()).toBe('5000');
    // A scenario without the setting gets the node's own value back.
    await runVariant(scenario({ clients: ['A'], steps: [acquire('A', 0, { leaseMs: 300 })] }), 'unsafe', { sandbox: fx.sandbox });
    expect(await setting()).toBe(before);
    expect(await node.exists('orders:meta')).toBe(0);
  });
});
