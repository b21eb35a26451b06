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
  it('thousands of acquisitions: no violation, and the counter equals the acquisitions', async () => {
    const r = await race(plan(server.url, { kind: 'token', clients: 8, durationMs: 5000 }));
    const [k] = r.keys;
    expect(r.stats.acquisitions).toBeGreaterThanOrEqual(1000);
    expect(r.violations).toEqual([]);
    expect(k!.counter).toBe(r.stats.acquisitions);
    expect(k!.increments).toBe(r.stats.acquisitions);
    expect(k!.acquisitions).toBe(r.stats.acquisitions);
    // The history holds a matching pair for every acquisition, and the end event closes it.
    expect(ops(r, 'acquire', 'ok')).toHaveLength(r.stats.acquisitions);
    expect(k!.history.events.at(-1)).toMatchObject({ kind: 'end', counter: r.stats.acquisitions });
    expect(k!.history.clients).toHaveLength(8);
    expect(r.stats.lostLocks).toBe(0);
    expect(r.stats.series.length).toBeGreaterThanOrEqual(5);
    expect(r.stats.waits.p99).toBeGreaterThanOrEqual(r.stats.waits.p50);
    expect(r.stats.fairness).toBeGreaterThan(0);
    expect(r.stats.fairness).toBeLessThanOrEqual(1);
    expect(r.harness.cpuPct).toBeGreaterThan(0);
    expect(Number.isFinite(r.harness.loopDelayP99Ms)).toBe(true);
    expect(r.harness.serverCpuPct).toBeGreaterThan(0);
  });

  it('fenced locks: every write carries a newer token and the register accepts them all', async () => {
    const r = await race(plan(server.url, { kind: 'fenced', clients: 6, durationMs: 2000, keys: ['a', 'b'] }));
    expect(r.violations).toEqual([]);
    for (const k of r.keys) {
      expect(k.clients).toHaveLength(3);
      expect(k.counter).toBe(k.acquisitions);
      expect(k.rejectedWrites).toBe(0);
      expect(k.register.token).toBeGreaterThanOrEqual(k.acquisitions);
    }
    const tokens = ops(r, 'write', 'ok').filter((e) => e.client === 'c1').map((e) => e.token!);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens).toEqual([...tokens].sort((a, b) => a - b));
  });

  it('reentrant (pub/sub waiters) with exponential holds and a short renewed lease', async () => {
    const r = await race(plan(server.url, { kind: 'reentrant', clients: 8, durationMs: 2000, leaseMs: 600, holdMs: 5, holdDist: 'exp' }));
    expect(r.stats.acquisitions).toBeGreaterThan(50);
    expect(r.violations).toEqual([]);
    expect(r.keys[0]!.counter).toBe(r.stats.acquisitions);
  });
});
