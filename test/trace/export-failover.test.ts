import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { openLockEnv, type OpenLockEnv } from '../../src/locks/env.js';
import { tokenLock } from '../../src/locks/token.js';
import type { TargetSpec } from '../../src/redis/target.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { within } from '../helpers/prometheus.js';
import { freePort } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { metricSum, scrape } from './export-scrape.js';

// `export` on a Sentinel sandbox while `sandbox failover` kills its primary: the exporter says
// it follows the promoted primary, and the acquisitions made there afterwards are counted on top
// of the ones before, in the same process (no restart, counters kept).

const env = tempStateEnv();
const NAME = 'export-failover';
let sandbox: SandboxHandle;
let exporter: CliProcess;
let port: number;
let locks: OpenLockEnv;

beforeAll(async () => {
  ensureBuilt();
  sandbox = await startSandbox({ topology: 'sentinel', name: NAME, dir: join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes'), env });
  port = await freePort();
  exporter = spawnCli(['export', '--sandbox', NAME, '--listen', `127.0.0.1:${port}`, '--orphan-scan', '0'], env, 120_000);
  await exporter.waitFor(/export: serving http/);
  const sentinel = sandbox.urls.sentinel!;
  const spec: TargetSpec = { ...parseEndpointUrl('redis://127.0.0.1'), sentinels: sentinel.hosts.map((h) => ({ host: '127.0.0.1', port: Number(h.split(':')[1]) })), masterName: sentinel.masterName };
  locks = await openLockEnv(spec, { mode: 'long-lived', name: 'redlock-cli:test', pubsub: 'plain' });
}, 120_000);

afterAll(async () => {
  await locks?.close();
  if (exporter && exporter.child.exitCode === null) {
    process.kill(exporter.pid, 'SIGTERM');
    await exporter.exited;
  }
  killStartedClis();
  await sandbox?.stop();
}, 60_000);

/** Takes and releases `key` through Sentinel; retried (bounded) while the client finds the new primary. */
async function takeAndRelease(key: string): Promise<void> {
  const req = { key, owner: `tok-${key}`, leaseMs: 10_000 };
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      expect(await tokenLock.tryAcquire(locks, req)).toMatchObject({ acquired: true });
      expect(await tokenLock.release(locks, req)).toBe('released');
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

const counts = async () => {
  const text = await scrape(port);
  return { acquisitions: metricSum(text, 'redlock_lock_acquisitions_total'), releases: metricSum(text, 'redlock_lock_releases_total') };
};

describe('export across a Sentinel failover', () => {
  it('follows the promoted primary and keeps counting there', async () => {
    expect(exporter.err()).toContain('for the Sentinel master');
    for (const key of ['orders:1', 'orders:2', 'orders:3']) await takeAndRelease(key);
    // One lock held across the failover, replicated first: the promoted primary has it, so it is
    // neither lost nor counted twice, and its release there ends the hold.
    const held = { key: 'orders:held', owner: 'tok-held', leaseMs: 60_000 };
    expect(await tokenLock.tryAcquire(locks, held)).toMatchObject({ acquired: true });
    expect(await locks.conn.client.call('WAIT', 2, 5000)).toBe(2);
    expect(await within(15_000, async () => (await counts()).acquisitions === 4)).toBe(true);

    const failover = await runCli(['sandbox', 'failover', '--name', NAME, '--json'], env);
    expect(failover.code, failover.stderr).toBe(0);
    await exporter.waitFor(/export: failover: now following 127\.0\.0\.1:\d+/, 60_000);
    const followed = Number(/export: failover: now following 127\.0\.0\.1:(\d+)/.exec(exporter.err())![1]);
    const promoted = new Redis({ port: followed, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    promoted.on('error', () => undefined);
    try {
      await promoted.connect();
      expect(((await promoted.call('ROLE')) as unknown[])[0]).toBe('master');
    } finally {
      promoted.disconnect();
    }

    for (const key of ['orders:4', 'orders:5', 'orders:6']) await takeAndRelease(key);
    expect(await tokenLock.release(locks, held)).toBe('released');
    let seen = await counts();
    expect(await within(15_000, async () => (seen = await counts()).releases === 7)).toBe(true);
    expect(seen).toEqual({ acquisitions: 7, releases: 7 });
    const text = await scrape(port);
    expect(metricSum(text, 'redlock_exporter_up')).toBe(1);
    expect(metricSum(text, 'redlock_lock_lost_in_failover_total')).toBe(0);
    expect(metricSum(text, 'redlock_lock_holders')).toBe(0);
    expect(metricSum(text, 'redlock_lock_hold_seconds_count')).toBe(7);

    process.kill(exporter.pid, 'SIGTERM');
    expect(await exporter.exited).toBe(0);
  }, 120_000);
});
