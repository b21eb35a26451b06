import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenLockEnv } from '../../src/locks/env.js';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { rawClient, testEnv } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { stageDeadlock, stageLongWait } from './stuck-traffic.js';

// `trace --fail-on liveness`: a deadlock (a lock set without a TTL by a client that disconnected
// while another waits) fails the run with exit 7, live and from its recording; without the flag
// the same trace exits 0, and so does the healthy twin (the holder has a lease and releases) with it.

const env = tempStateEnv();
let server: RedisServer;
let lockEnv: OpenLockEnv;
let raw: Redis;

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
  lockEnv = await testEnv(server);
  raw = rawClient(server);
}, 30_000);

afterAll(async () => {
  killStartedClis();
  raw?.disconnect();
  await lockEnv?.close();
  await server?.stop();
});

async function trace(args: readonly string[]): Promise<CliProcess> {
  const cli = spawnCli(['trace', '--url', server.url, ...args], env, 90_000);
  await cli.waitFor(/trace: following/);
  return cli;
}

/** Ctrl-C once the trace printed `line` (it has read that far); its exit code. */
async function endAfter(cli: CliProcess, line: RegExp): Promise<number> {
  await cli.waitFor(line, 30_000);
  process.kill(cli.pid, 'SIGINT');
  return cli.exited;
}

describe('trace --fail-on liveness', () => {
  it('exits 7 on a deadlock, live and from the recording; 0 without it, and 0 on the healthy twin', async () => {
    const rec = join(env.XDG_STATE_HOME!, 'dead.ndjson');
    const failing = await trace(['dead:*', '--fail-on', 'liveness', '--record', rec]);
    const plain = await trace(['dead:*']);
    const twin = await trace(['busy:*', '--fail-on', 'liveness']);
    await stageDeadlock(server, lockEnv, raw, 'dead:1');
    await stageLongWait(lockEnv, raw, 'busy:1');
    await raw.set('busy:marker', 'm', 'PX', 5000, 'NX');
    const deadlock = /^~ deadlock \(liveness, no-ttl\) dead:1 /m;
    expect(await endAfter(failing, deadlock)).toBe(7);
    expect(await endAfter(plain, deadlock)).toBe(0);
    expect(await endAfter(twin, /busy:marker/)).toBe(0);
    expect(twin.out()).not.toMatch(/deadlock|starvation/);

    expect((await runCli(['trace', '--from', rec, '--fail-on', 'liveness'], env)).code).toBe(7);
    expect((await runCli(['trace', '--from', rec], env)).code).toBe(0);
  }, 90_000);

  it('refuses another class with one line and exit 2, before connecting', async () => {
    const r = await runCli(['trace', '--url', 'redis://127.0.0.1:1', '--fail-on', 'warning'], env);
    expect([r.code, r.stderr.trim()]).toEqual([2, 'redlock-cli: --fail-on "warning": expected unsafe (the default) or liveness (a deadlock or a starvation exits 7 too)']);
  });
});
