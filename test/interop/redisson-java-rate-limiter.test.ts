import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import type { LockView } from '../../src/core/lock-view.js';
import { describeWithPeer, runRateLimiter, type RateLimitEvent } from '../helpers/redisson-peer.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { jsonOf, useInteropServer } from './redisson-java-setup.js';

// The real Redisson 3.52.0 RRateLimiter (test/helpers/RedissonRateLimit.java) takes permits;
// inspect then shows its numbers: rate, interval, type, permits left, the interval's grants, each
// client's state, its TTL; the same for a user who may only read (no EVAL: plain reads), and
// ls / doctor call it normal. Intervals of an hour: no grant comes back during a test.

const HOUR = 3_600_000;

/** Acquired steps' permits per client id, from the run's events. */
function taken(events: readonly RateLimitEvent[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of events) if (e.event === 'acquired') out.set(e.client!, [...(out.get(e.client!) ?? []), e.permits!]);
  return out;
}

describeWithPeer('Redisson (Java) RRateLimiter in inspect, ls and doctor', () => {
  const s = useInteropServer();
  const env = tempStateEnv();

  it('an OVERALL limiter: permits left, grants of this interval, a refused tryAcquire changes nothing', async () => {
    const run = await runRateLimiter(s.server.port, { name: 'api-limit', type: 'OVERALL', rate: 10, intervalMs: HOUR }, ['0:2', '0:3', '1:1', '0:5']);
    expect(run.code, run.output).toBe(0);
    expect(run.events.map((e) => e.event)).toEqual(['rate-set', 'acquired', 'acquired', 'acquired', 'failed', 'done']);

    const [view] = jsonOf<LockView[]>(await s.cli('inspect', 'api-limit', '--json'));
    expect(view).toMatchObject({ kind: 'rate-limiter', ttlMs: -1, rateLimiter: { rate: 10, intervalMs: HOUR, type: 'overall', keepAliveMs: 0 } });
    const [state] = view!.rateLimiter!.states;
    expect(state).toMatchObject({ client: null, stored: 4, availableNow: 4, returnablePermits: 0, grantCount: 3, valueTtlMs: -1 });
    expect(state!.grants.map((g) => g.permits)).toEqual([2, 3, 1]);
    for (const g of state!.grants) expect(g.returnsInMs + g.agoMs).toBe(HOUR);
    expect(view!.warnings.filter((w) => w.severity !== 'info')).toEqual([]);

    const text = (await s.cli('inspect', 'api-limit')).stdout;
    expect(text).toContain('Redisson rate limiter, no TTL');
    expect(text).toContain('10 permits per 1 h 00 m, overall');
    expect(text).toContain('4 left now (4 stored, no TTL)');
    expect(text).toContain('6 in this interval, 3 grant(s)');

    const ls = jsonOf<LockView[]>(await s.cli('ls', '--json'));
    expect(ls.map((v) => [v.key, v.kind])).toEqual([['api-limit', 'rate-limiter']]);
    expect((await s.cli('ls')).stdout).toMatch(/api-limit\s+rate-limiter\s+4\/10 left\s+no TTL/);
    const doctor = await s.cli('doctor');
    expect([doctor.code, doctor.stdout]).toEqual([0, '']);
  });

  it("a PER_CLIENT limiter with keepAliveTime: each client's state and TTL, also read without EVAL", async () => {
    const limiter = { name: 'per-user', type: 'PER_CLIENT', rate: 5, intervalMs: HOUR, keepAliveMs: 2 * HOUR } as const;
    const run = await runRateLimiter(s.server.port, limiter, ['0:2', '1:1', '1:1', '1:4']);
    expect(run.code, run.output).toBe(0);
    const clients = run.events.find((e) => e.event === 'done')!.clients!;
    expect(clients).toHaveLength(2);
    const byClient = taken(run.events);

    const check = (view: LockView | undefined) => {
      expect(view).toMatchObject({ kind: 'rate-limiter', rateLimiter: { rate: 5, type: 'per-client', keepAliveMs: 2 * HOUR } });
      expect(view!.ttlMs).toBeGreaterThan(HOUR);
      const states = view!.rateLimiter!.states;
      expect(states.map((st) => st.client).sort()).toEqual([...clients].sort());
      for (const st of states) {
        const permits = byClient.get(st.client!)!;
        const left = 5 - permits.reduce((a, b) => a + b, 0);
        expect(st).toMatchObject({ stored: left, availableNow: left, grantCount: permits.length });
        expect(st.grants.map((g) => g.permits)).toEqual(permits);
        expect(st.valueTtlMs).toBeGreaterThan(HOUR);
      }
      expect(view!.warnings.filter((w) => w.severity !== 'info')).toEqual([]);
    };
    const [scripted] = jsonOf<LockView[]>(await s.cli('inspect', 'per-user', '--json'));
    check(scripted);
    expect(scripted!.readConsistency).toBeUndefined();

    // A user with +@read only may not EVAL: the snapshot falls back to plain reads and decodes the same.
    await s.raw.call('ACL', 'SETUSER', 'oncall', 'on', '>pw', '~*', '&*', '-@all', '+@read', '+@connection', '+info');
    const readOnly = await runCli(['inspect', 'per-user', '--json'], { ...env, REDIS_URL: `redis://oncall:pw@127.0.0.1:${s.server.port}` });
    expect(readOnly.code, readOnly.stderr).toBe(0);
    const [plain] = jsonOf<LockView[]>(readOnly);
    check(plain);
    expect(plain!.readConsistency).toBe('separate-reads');

    const text = (await s.cli('inspect', 'per-user')).stdout;
    expect(text).toContain('per client (each Redisson client has its own), keepAliveTime 2 h 00 m');
    expect(text).toContain(`client    ${clients[1]}`);
    const doctor = await s.cli('doctor');
    expect([doctor.code, doctor.stdout]).toEqual([0, '']);
  });

  it('doctor flags permits that can never come back, and its printed fix gives them back', async () => {
    const run = await runRateLimiter(s.server.port, { name: 'jobs', type: 'OVERALL', rate: 4, intervalMs: HOUR }, ['0:3']);
    expect(run.code, run.output).toBe(0);
    // The grants zset lost (a stray DEL, an eviction): 1 left, and nothing will return the other 3.
    await s.raw.del('{jobs}:permits');
    const doctor = await s.cli('doctor', '--json');
    const findings = jsonOf<{ code: string; key: string; severity: string; fix: string }[]>(doctor);
    expect(findings.map((f) => [f.code, f.key, f.severity])).toEqual([['rate-limiter-permits-lost', 'jobs', 'error']]);
    expect(findings[0]!.fix).toContain('EVAL');

    const fixed = runFix(findings[0]!.fix, s.server.port);
    expect(fixed, 'the printed fix').toBe('4');
    const [view] = jsonOf<LockView[]>(await s.cli('inspect', 'jobs', '--json'));
    expect(view!.rateLimiter!.states[0]).toMatchObject({ stored: 4, availableNow: 4 });
    expect((await s.cli('doctor')).code).toBe(0);
  });
});

/** Runs doctor's printed redis-cli line (as a user pastes it) and returns its output. */
function runFix(fix: string, port: number): string {
  expect(fix).toContain(`-p ${port}`);
  return execFileSync('sh', ['-c', fix], { encoding: 'utf8', timeout: 15_000 }).trim();
}
