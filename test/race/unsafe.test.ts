import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli } from '../helpers/run-cli.js';
import { env, kinds, ops, plan, race } from './helpers.js';

// Each knob on its own, against the same server: the checker must find what broke, and the
// counter (a read-modify-write spanning the hold) must show increments lost.
let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

describe('race, unsafe knobs', () => {
  it('--no-renew with a lease shorter than every hold: overlapping sections and lost increments', async () => {
    const r = await race(plan(server.url, { kind: 'reentrant', clients: 6, durationMs: 2000, leaseMs: 30, holdMs: 60, renew: false }));
    const [k] = r.keys;
    expect(kinds(r)).toEqual(expect.arrayContaining(['lost-update', 'mutual-exclusion']));
    expect(k!.counter).toBeLessThan(k!.increments);
    expect(r.stats.lostLocks).toBeGreaterThan(0);
    // The watchdog in fixed mode says so as it happens.
    expect(k!.history.events.some((e) => e.kind === 'lock-lost')).toBe(true);
  });

  it('a lease shorter than some holds (exponential holds, mean below the lease), not renewed', async () => {
    const r = await race(plan(server.url, { kind: 'token', clients: 6, durationMs: 2500, leaseMs: 40, holdMs: 20, holdDist: 'exp', renew: false }));
    const [k] = r.keys;
    expect(kinds(r)).toEqual(expect.arrayContaining(['lost-update', 'mutual-exclusion']));
    expect(k!.counter).toBeLessThan(k!.increments);
    // The same run with the safe release: late releases are refused, never delete someone else's lock.
    expect(r.stats.notOwner).toBeGreaterThan(0);
    expect(r.stats.foreignDeletes).toBe(0);
  });

  it('--release naive-del deletes other clients\' locks, and the checker and counter show it', async () => {
    const r = await race(plan(server.url, { kind: 'token', clients: 6, durationMs: 2500, leaseMs: 40, holdMs: 20, holdDist: 'exp', renew: false, release: 'naive-del' }));
    const [k] = r.keys;
    expect(r.stats.foreignDeletes).toBeGreaterThan(0);
    expect(r.stats.notOwner).toBe(0);
    expect(ops(r, 'release', 'ok').some((e) => e.detail === 'deleted-other')).toBe(true);
    expect(kinds(r)).toEqual(expect.arrayContaining(['lost-update', 'mutual-exclusion']));
    expect(k!.counter).toBeLessThan(k!.increments);
  });

  it('through the CLI: exit 7, the summary says UNSAFE and --json carries the history', async () => {
    const args = ['race', 'orders', '--url', server.url, '--kind', 'token', '--clients', '4', '--duration', '1500ms', '--lease', '30ms', '--hold', '60ms', '--no-renew', '--yes'];
    const text = await runCli(args, env);
    expect(text.code).toBe(7);
    expect(text.stdout).toMatch(/verdict\s+UNSAFE: \d+ violations? \(.*mutual-exclusion \d+/);
    expect(text.stdout).toMatch(/counter\s+\d+ after \d+ increments \(\d+ lost\)/);
    const json = await runCli([...args, '--json'], env);
    expect(json.code).toBe(7);
    const out = JSON.parse(json.stdout) as { safe: boolean; violations: { kind: string }[]; keys: { counter: number; increments: number; history: { events: unknown[] } }[] };
    expect(out.safe).toBe(false);
    expect(out.violations.length).toBeGreaterThan(0);
    expect(out.keys[0]!.counter).toBeLessThan(out.keys[0]!.increments);
    expect(out.keys[0]!.history.events.length).toBeGreaterThan(10);
  });
});
