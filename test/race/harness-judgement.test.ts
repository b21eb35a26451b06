import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raceJson, raceSummary } from '../../src/commands/race/output.js';
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
    // No renewals, a 400 ms lease and 300 ms holds: 100 ms of slack, far less than the stall. The
    // starved holder still has its whole hold to sit out when the process runs again, and the token
    // waiters (retrying every 200 ms or so) get in meanwhile: two clients inside at once.
    const p = plan(server.url, { kind: 'token', clients: 4, durationMs: 2000, leaseMs: 400, holdMs: 300, renew: false });
    const r = await runRace(p, { env, stallFirstHoldMs: STALL_MS + 400 });
    const info = JSON.stringify({ judgement: r.judgement, violations: r.violations.map((v) => v.message) });
    expect(r.harness.loopDelayMaxMs, info).toBeGreaterThanOrEqual(STALL_MS - 50);
    expect(r.violations.length, info).toBeGreaterThan(0);
    expect(r.judgement, info).toMatchObject({ outcome: 'inconclusive', slackMs: 100 });
    expect(r.judgement.reason, info).toMatch(/^the harness's timers ran [\d.]+ m?s late, more than the 100 ms a holder's hold can be late before its lease runs out: .*--procs/);
    // What the race command prints (and exits 8 on): never UNSAFE.
    // The summary wraps to the terminal: read the verdict with its continuation lines.
    const summary = raceSummary(r).join('\n').replace(/\s+/g, ' ');
    expect(summary, info).toMatch(/verdict INCONCLUSIVE: \d+ violations? \(.*\), but the harness's timers ran/);
    expect(summary, info).not.toMatch(/UNSAFE/);
    expect(raceJson(r), info).toMatchObject({ safe: false, outcome: 'inconclusive', inconclusive: r.judgement.reason });
  }, 30_000);

  it('a plan unsafe by design stays UNSAFE even when the harness was starved', async () => {
    const p = plan(server.url, { kind: 'reentrant', clients: 6, durationMs: 1500, leaseMs: 30, holdMs: 60, renew: false });
    const r = await runRace(p, { env, stallFirstHoldMs: STALL_MS });
    expect(r.harness.loopDelayMaxMs).toBeGreaterThanOrEqual(STALL_MS - 50);
    expect(r.violations.length).toBeGreaterThan(0);
    expect(r.judgement).toMatchObject({ outcome: 'unsafe', slackMs: undefined });
    expect(raceSummary(r).join('\n').replace(/\s+/g, ' ')).toMatch(/verdict UNSAFE: /);
  }, 30_000);
});
