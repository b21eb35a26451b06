import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { owner } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli } from '../helpers/run-cli.js';
import { env, ops, plan, race } from './helpers.js';

// --sandbox: a sandbox someone started keeps running after the race; faults go to its nodes.
let sandbox: SandboxHandle;
let server: RedisServer;
beforeAll(async () => {
  [sandbox, server] = await Promise.all([
    startSandbox({ topology: 'single', name: 'race-target', dir: join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes'), env }),
    startRedis(),
  ]);
}, 30_000);
afterAll(async () => {
  await sandbox?.stop();
  await server?.stop();
});

describe('race targets', () => {
  it('--sandbox: chaos on its node, and the sandbox is still up afterwards', async () => {
    const r = await race(plan('', { kind: 'token', clients: 3, durationMs: 2000, leaseMs: 1000, holdMs: 200, chaos: 'clock', chaosEveryMs: 800, target: { type: 'sandbox', name: 'race-target' } }));
    expect(r.target).toBe('sandbox race-target (single)');
    const jumps = r.keys[0]!.history.events.filter((e) => e.kind === 'fault' && e.verb === 'clock' && e.phase === 'ok');
    expect(jumps.length).toBeGreaterThanOrEqual(1);
    expect(jumps[0]).toMatchObject({ node: 'n1' });
    expect(r.keys[0]!.history.nodes).toEqual(['n1']);
    const status = await sandbox.status();
    expect(status.nodes.map((n) => n.state)).toEqual(['running']);
  });

  it('--sandbox without the fault proxy refuses latency before any client starts', async () => {
    const r = await runCli(['race', 'orders', '--sandbox', 'race-target', '--chaos', 'latency'], env);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('redlock-cli: --chaos latency goes through the fault proxy: start the sandbox with sandbox up --proxy');
  });

  it('a run in which nobody acquires is INCONCLUSIVE (exit 8), never SAFE', async () => {
    const node = new Redis(sandbox.urls.primary!, { maxRetriesPerRequest: 0 });
    try {
      await node.hset('held', owner(2), '1'); // held with no TTL: nobody can take it
      const r = await runCli(['race', 'held', '--sandbox', 'race-target', '--clients', '2', '--duration', '800ms', '--wait', '200ms', '--json'], env);
      expect(r.code).toBe(8);
      expect(JSON.parse(r.stdout)).toMatchObject({ safe: false, acquisitions: 0 });
    } finally {
      await node.del('held');
      node.disconnect();
    }
  }, 30_000);

  it('Ctrl-C ends the race early: the summary is still printed, exit 130', async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 700);
    const started = Date.now();
    const r = await runCli(['race', 'orders', '--url', server.url, '--clients', '4', '--duration', '30s', '--lease', '2s', '--hold', '5ms', '--yes'], env, abort.signal);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/^race orders against 127\.0\.0\.1:\d+ \(interrupted\)$/m);
    // A race cut short before any acquisition (a slow start on a busy machine) proves nothing.
    const acquired = Number(/acquisitions\s+(\d+)/.exec(r.stdout)?.[1]);
    expect(r.stdout).toMatch(acquired > 0 ? /verdict\s+SAFE/ : /verdict\s+INCONCLUSIVE: no client acquired the lock/);
    // Clients waiting when it stopped are recorded as stopped, not as timeouts.
    expect(r.stdout).toMatch(/timeouts\s+0 waits/);
  });

  it('several keys: clients dealt round-robin, one history and one verdict per key', async () => {
    const r = await race(plan(server.url, { kind: 'reentrant', clients: 5, durationMs: 1500, keys: ['a', 'b'] }));
    expect(r.keys.map((k) => [k.key, k.clients])).toEqual([
      ['a', ['c1', 'c3', 'c5']],
      ['b', ['c2', 'c4']],
    ]);
    for (const k of r.keys) {
      expect(k.verdict.violations).toEqual([]);
      expect(k.counter).toBe(k.acquisitions);
      expect(ops({ ...r, keys: [k] }, 'acquire', 'ok').every((e) => k.clients.includes(e.client))).toBe(true);
    }
    expect(r.stats.keys.map((k) => k.key)).toEqual(['a', 'b']);
  });
});
