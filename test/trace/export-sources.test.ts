import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { within } from '../helpers/prometheus.js';
import { freePort, startRedis, type RedisServer } from '../helpers/redis-server.js';
import { env, plan, race } from '../race/helpers.js';
import { metricSum, scrape } from './export-scrape.js';

// `export`'s other sources. `--source keyspace` (notifications, each changed key read back)
// during a race with a chaos pause: the acquisitions, releases and expiries it counts equal the
// race's own. `--source poll` (snapshots every interval): locks held for several intervals,
// released, renewed and left to expire, each told apart.

let server: RedisServer;

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
}, 120_000);

afterAll(async () => {
  killStartedClis();
  await server?.stop();
}, 60_000);

async function startExporter(args: readonly string[]): Promise<{ cli: CliProcess; port: number }> {
  const port = await freePort();
  const cli = spawnCli(['export', '--url', server.url, '--listen', `127.0.0.1:${port}`, '--orphan-scan', '0', ...args], env, 120_000);
  await cli.waitFor(/export: serving http/);
  return { cli, port };
}

describe('export --source keyspace', () => {
  it("counts a race's acquisitions, releases and expiries exactly", async () => {
    const { cli, port } = await startExporter(['--source', 'keyspace', '--enable-notifications']);
    const r = await race(plan(server.url, { keys: ['ks-orders'], kind: 'token', clients: 4, durationMs: 4000, leaseMs: 300, holdMs: 20, holdDist: 'uniform', waitMs: 10_000, chaos: 'pause', chaosEveryMs: 1200 }));
    const s = r.stats;
    expect(s.acquisitions).toBeGreaterThan(20);
    expect(s.lostLocks).toBeGreaterThan(0);
    expect(s.timeouts).toBe(0);
    const want = { acquisitions: s.acquisitions, releases: s.acquisitions - s.notOwner, expiries: s.lostLocks };
    let got = {};
    const equal = await within(15_000, async () => {
      const text = await scrape(port);
      got = {
        acquisitions: metricSum(text, 'redlock_lock_acquisitions_total'),
        releases: metricSum(text, 'redlock_lock_releases_total'),
        expiries: metricSum(text, 'redlock_lock_expiries_total'),
      };
      return JSON.stringify(got) === JSON.stringify(want);
    });
    expect(got, JSON.stringify({ got, want, notOwner: s.notOwner, faults: s.faults })).toEqual(want);
    expect(equal).toBe(true);
    process.kill(cli.pid, 'SIGTERM');
    expect(await cli.exited).toBe(0);
  }, 90_000);
});

describe('export --source poll', () => {
  it('tells acquisitions, releases, renewals and expiries apart between snapshots', async () => {
    const { cli, port } = await startExporter(['--source', 'poll', '--poll-every', '100ms', 'poll:*']);
    const raw = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    raw.on('error', () => undefined);
    await raw.connect();
    const sums = async () => {
      const text = await scrape(port);
      const names = ['acquisitions', 'releases', 'renewals', 'expiries'] as const;
      return Object.fromEntries(names.map((n) => [n, metricSum(text, `redlock_lock_${n}_total`)]));
    };
    let last: Record<string, number> = {};
    const seen = async (want: Record<string, number>) => {
      await within(10_000, async () => JSON.stringify((last = await sums())) === JSON.stringify(want));
      expect(last).toEqual(want);
    };
    try {
      // Values `ls` recognises as locks: node-redlock's 32 hex characters.
      const token = (c: string) => c.repeat(32);
      await raw.set('poll:released', token('a'), 'PX', 30_000, 'NX');
      await raw.set('poll:renewed', token('b'), 'PX', 30_000, 'NX');
      await seen({ acquisitions: 2, releases: 0, renewals: 0, expiries: 0 });
      await raw.del('poll:released');
      await raw.pexpire('poll:renewed', 60_000);
      await seen({ acquisitions: 2, releases: 1, renewals: 1, expiries: 0 });
      // Seen held (a poll comes within its 3 s), then gone after its lease: an expiry, not a release.
      await raw.set('poll:expires', token('c'), 'PX', 3000, 'NX');
      await seen({ acquisitions: 3, releases: 1, renewals: 1, expiries: 1 });
      await raw.del('poll:renewed');
      await seen({ acquisitions: 3, releases: 2, renewals: 1, expiries: 1 });
    } finally {
      raw.disconnect();
    }
    process.kill(cli.pid, 'SIGTERM');
    expect(await cli.exited).toBe(0);
  }, 60_000);
});
