import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { ops, plan, race } from './helpers.js';

// A lease far longer than any stall a loaded test machine produces, renewed: nothing may break.
let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

describe('race, safe configurations', () => {
  it('thousands of acquisitions (hundreds on a starved machine): no violation, counter equals acquisitions', async () => {
    // Eight keys raced at once: a busy test machine's late timers slow each key, not the total.
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8'];
    const r = await race(plan(server.url, { kind: 'token', clients: 24, durationMs: 10_000, keys }));
    // Thousands on an idle 2-core box; a machine running other suites beside it gets far fewer
    // timer turns, and the claim (no violation, nothing lost) does not depend on the count.
    expect(r.stats.acquisitions).toBeGreaterThanOrEqual(500);
    expect(r.violations).toEqual([]);
    for (const k of r.keys) {
      expect(k.acquisitions).toBeGreaterThan(0);
      expect(k.counter).toBe(k.acquisitions);
      expect(k.increments).toBe(k.acquisitions);
      expect(k.history.clients).toHaveLength(3);
      // The end event closes each history with the resource as the run left it.
      expect(k.history.events.at(-1)).toMatchObject({ kind: 'end', counter: k.acquisitions });
    }
    // The history holds a completed acquire for every acquisition counted.
    expect(ops(r, 'acquire', 'ok')).toHaveLength(r.stats.acquisitions);
    expect(r.stats.lostLocks).toBe(0);
    expect(r.stats.series.length).toBeGreaterThanOrEqual(10);
    expect(r.stats.waits.p99).toBeGreaterThanOrEqual(r.stats.waits.p50);
    expect(r.stats.fairness).toBeGreaterThan(0);
    expect(r.stats.fairness).toBeLessThanOrEqual(1);
    expect(r.harness.cpuPct).toBeGreaterThan(0);
    expect(Number.isFinite(r.harness.loopDelayP99Ms)).toBe(true);
    expect(r.harness.serverCpuPct).toBeGreaterThan(0);
  }, 60_000);

  it('fenced locks: every write carries a newer token and the register accepts them all', async () => {
    const r = await race(plan(server.url, { kind: 'fenced', clients: 6, durationMs: 2000, keys: ['a', 'b'] }));
    expect(r.violations).toEqual([]);
    for (const k of r.keys) {
      expect(k.clients).toHaveLength(3);
      expect(k.counter).toBe(k.acquisitions);
      expect(k.rejectedWrites).toBe(0);
      expect(k.register.token).toBeGreaterThanOrEqual(k.acquisitions);
    }
    // In the order the register took them, each key's tokens only grow.
    for (const k of r.keys) {
      const tokens = k.history.events.flatMap((e) => (e.kind === 'op' && e.op === 'write' && e.phase === 'ok' ? [e.token!] : []));
      expect(tokens.length).toBe(k.acquisitions);
      expect(tokens).toEqual([...tokens].sort((a, b) => a - b));
      expect(new Set(tokens).size).toBe(tokens.length);
    }
  });

  it('reentrant (pub/sub waiters) with exponential holds and a short renewed lease', async () => {
    const r = await race(plan(server.url, { kind: 'reentrant', clients: 8, durationMs: 2000, leaseMs: 600, holdMs: 5, holdDist: 'exp' }));
    expect(r.stats.acquisitions).toBeGreaterThan(10);
    expect(r.violations).toEqual([]);
    expect(r.keys[0]!.counter).toBe(r.stats.acquisitions);
  });
});
