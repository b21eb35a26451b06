import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../src/sandbox/procfs.js';
import { ensureBuilt } from '../helpers/build.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { kinds, ops, plan, race, raceWorkers } from './helpers.js';

// Real worker processes (dist/race/worker.js), forked by the race and stopped by it.
let server: RedisServer;
// The workers run from dist/: a stale build is rebuilt first, which takes a while on a busy machine.
beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

const faultDetails = (r: Awaited<ReturnType<typeof race>>, verb: string): string[] =>
  r.keys[0]!.history.events.flatMap((e) => (e.kind === 'fault' && e.verb === verb && e.phase === 'ok' && e.detail ? [e.detail] : []));

describe('race --procs', () => {
  it('clients in two worker processes: one history, safe, counter equals acquisitions, workers gone after', async () => {
    const r = await race(plan(server.url, { kind: 'reentrant', clients: 6, procs: 2, durationMs: 2500 }));
    const [k] = r.keys;
    expect(r.violations).toEqual([]);
    expect(k!.counter).toBe(r.stats.acquisitions);
    // Enough acquisitions that both workers' clients interleave; not a throughput floor: worker
    // start-up eats most of the 2.5 s when the machine is loaded (>20 failed at load 35).
    expect(r.stats.acquisitions).toBeGreaterThan(5);
    // Clients of both workers (dealt round-robin: c1, c3, c5 and c2, c4, c6) took the lock.
    const who = new Set(ops(r, 'acquire', 'ok').map((e) => e.client));
    expect(who.has('c1') || who.has('c3') || who.has('c5')).toBe(true);
    expect(who.has('c2') || who.has('c4') || who.has('c6')).toBe(true);
    // Ids stay unique across processes, so the checker pairs every operation correctly.
    const invokes = k!.history.events.filter((e) => e.kind === 'op' && e.phase === 'invoke').map((e) => (e.kind === 'op' ? e.id : 0));
    expect(new Set(invokes).size).toBe(invokes.length);
    expect(r.harness.workers).toBe(2);
    expect(r.harness.workerCpuPctMax).toBeGreaterThan(0);
    expect(raceWorkers()).toEqual([]);
  });

  it('--chaos pause SIGSTOPs the worker of a holder: its lease runs out, another client enters, the checker sees it', async () => {
    const r = await race(
      plan('', { kind: 'token', clients: 4, procs: 2, durationMs: 4000, leaseMs: 200, holdMs: 20, chaos: 'pause', chaosEveryMs: 1000, target: { type: 'fresh' } }),
    );
    const details = faultDetails(r, 'pause');
    expect(details.length).toBeGreaterThanOrEqual(2);
    expect(details[0]).toMatch(/^SIGSTOP worker \d+ \(2 clients\) for 420 ms, then SIGCONT$/);
    // The frozen clients are recorded as paused, so the checker can say "while ... was paused".
    expect(ops(r, 'pause', 'ok').length).toBeGreaterThanOrEqual(4);
    expect(kinds(r)).toContain('mutual-exclusion');
    expect(r.violations.some((v) => v.message.includes('paused'))).toBe(true);
    const pids = details.map((d) => Number(/worker (\d+)/.exec(d)![1]));
    expect(pids.filter(isAlive)).toEqual([]);
    expect(raceWorkers()).toEqual([]);
  }, 30_000);

  it('--chaos kill-holder SIGKILLs the worker of a holder; its clients crash and successors take over', async () => {
    const r = await race(
      plan('', { kind: 'reentrant', clients: 4, procs: 2, durationMs: 3500, leaseMs: 300, holdMs: 20, chaos: 'kill-holder', chaosEveryMs: 1000, target: { type: 'fresh' } }),
    );
    const [k] = r.keys;
    const details = faultDetails(r, 'kill-holder');
    // Forking and connecting the new worker takes a while on a busy machine: one kill may be all there is time for.
    expect(details.length).toBeGreaterThanOrEqual(1);
    expect(details[0]).toMatch(/^SIGKILL worker \d+ \(2 clients\); a new worker runs c\d\.1, c\d\.1$/);
    expect(ops(r, 'crash', 'ok').length).toBeGreaterThanOrEqual(2);
    // Successors are new clients to the checker, and they get the lock.
    expect(k!.clients.some((c) => c.includes('.'))).toBe(true);
    expect(ops(r, 'acquire', 'ok').some((e) => e.client.includes('.'))).toBe(true);
    // A crash loses no acquired update: the dead holder's lease runs out before anyone else enters.
    // Never UNSAFE; when the workers' timers ran later than the 300 ms lease allows, a holder may
    // outstay its lease and the race says it could not tell (issue 13), which is not a verdict.
    const info = JSON.stringify({ judgement: r.judgement, violations: r.violations });
    expect(r.judgement.outcome, info).not.toBe('unsafe');
    if (r.judgement.outcome === 'safe') expect(k!.counter, info).toBeGreaterThanOrEqual(k!.increments);
    else expect(r.judgement.reason, info).toMatch(/the harness's timers ran .* late|proves nothing/);
    expect(r.stats.crashed).toBeGreaterThanOrEqual(2);
    expect(raceWorkers()).toEqual([]);
    for (const d of details) expect(isAlive(Number(/worker (\d+)/.exec(d)![1]))).toBe(false);
  }, 30_000);
});
