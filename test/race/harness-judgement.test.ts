import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRace } from '../../src/race/run.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { env, plan } from './helpers.js';

// The race judging its own harness, on a real server. The test hook blocks the whole race
// process for 500 ms during the first hold (a starved machine): no timer runs, the holder's
// lease runs out under it on the server, another client takes the lock. Whether the lock is safe
// cannot be told from that, so a plan that is safe by design comes out inconclusive; a plan that
// is unsafe by design (holds longer than the lease, never renewed) stays UNSAFE whatever the lateness.
let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

const STALL_MS = 500;

describe('race: the harness judges its own lateness', () => {
  it('a starved harness with a safe plan: violations the lateness explains make the race inconclusive, not UNSAFE', async () => {
    // No renewals, a 150 ms lease and 60 ms holds: 90 ms of slack, far less than the stall.
    const p = plan(server.url, { kind: 'token', clients: 4, durationMs: 1500, leaseMs: 150, holdMs: 60, renew: false });
    const r = await runRace(p, { env, stallFirstHoldMs: STALL_MS });
    const info = JSON.stringify({ judgement: r.judgement, violations: r.violations.map((v) => v.message) });
    expect(r.harness.loopDelayMaxMs, info).toBeGreaterThanOrEqual(STALL_MS - 50);
    expect(r.violations.length, info).toBeGreaterThan(0);
    expect(r.judgement, info).toMatchObject({ outcome: 'inconclusive', slackMs: 90 });
    expect(r.judgement.reason, info).toMatch(/^the harness's timers ran \d+ ms late, more than the 90 ms a holder's hold can be late before its lease runs out: .*--procs/);
  }, 30_000);

  it('a plan unsafe by design stays UNSAFE even when the harness was starved', async () => {
    const p = plan(server.url, { kind: 'reentrant', clients: 6, durationMs: 1500, leaseMs: 30, holdMs: 60, renew: false });
    const r = await runRace(p, { env, stallFirstHoldMs: STALL_MS });
    expect(r.harness.loopDelayMaxMs).toBeGreaterThanOrEqual(STALL_MS - 50);
    expect(r.violations.length).toBeGreaterThan(0);
    expect(r.judgement).toMatchObject({ outcome: 'unsafe', slackMs: undefined });
  }, 30_000);
});
