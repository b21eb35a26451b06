import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { plan, race } from './helpers.js';

// 1,000 logical clients, each with its own connection and owner, on one key, in this process.
// Kept to a few seconds here; bench/race.ts runs the 10 s figure.
let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

describe('race with 1,000 clients', () => {
  it('every client connects and races; the history stays whole and the harness reports its own load', async () => {
    const started = Date.now();
    // A lease no stall of a busy test machine outlasts: this is about the harness, not the lock.
    const r = await race(plan(server.url, { kind: 'token', clients: 1000, durationMs: 3000, leaseMs: 5000, holdMs: 2 }));
    const [k] = r.keys;
    expect(k!.clients).toHaveLength(1000);
    expect(r.stats.shares).toHaveLength(1000);
    expect(r.stats.acquisitions).toBeGreaterThan(0);
    // Waiting clients time out and try again: every client was in the race, not just connected.
    const tried = new Set(k!.history.events.flatMap((e) => (e.kind === 'op' && e.op === 'acquire' ? [e.client] : [])));
    expect(tried.size).toBe(1000);
    expect(r.stats.errors).toBe(0);
    expect(r.violations).toEqual([]);
    expect(k!.counter).toBe(r.stats.acquisitions);
    expect(r.harness.cpuPct).toBeGreaterThan(0);
    expect(r.harness.loopDelayMaxMs).toBeGreaterThanOrEqual(r.harness.loopDelayP99Ms);
    expect(typeof r.harness.keptUp).toBe('boolean');
    // Connecting, racing, checking and closing 1,000 clients fits well inside the test's budget.
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 30_000);
});
