import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { within } from '../helpers/prometheus.js';
import { freePort, startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { metricSum as sum, scrape as metrics } from './export-scrape.js';

// `export` as an operator runs it: the built CLI with a read-only ACL user, through a server
// restart, stopped by SIGTERM; the poll source; bad input; and the shipped rules through promtool.

const env = tempStateEnv();
/** The read-only user of the issue: reads, its own connection, INFO and MONITOR. */
const READ_ONLY = ['+@read', '+@connection', '+info', '+monitor'];

let server: RedisServer;
let raw: Redis;

async function addUser(r: Redis): Promise<void> {
  await r.call('ACL', 'SETUSER', 'exporter', 'on', '>exp-s3cret', '~*', '&*', ...READ_ONLY);
}

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
  raw = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 200 });
  raw.on('error', () => undefined);
  await raw.connect();
  await addUser(raw);
}, 30_000);

afterAll(async () => {
  killStartedClis();
  raw?.disconnect();
  await server?.stop();
});

async function startExporter(args: readonly string[]): Promise<{ cli: CliProcess; port: number }> {
  const port = await freePort();
  const cli = spawnCli(['export', '--listen', `127.0.0.1:${port}`, ...args], env, 90_000);
  await cli.waitFor(/export: serving http/);
  return { cli, port };
}

describe('export', () => {
  it('runs as a read-only ACL user, reconnects after a restart, and stops on SIGTERM with exit 0 and its port closed', async () => {
    const url = `redis://exporter:exp-s3cret@127.0.0.1:${server.port}`;
    const { cli, port } = await startExporter(['--url', url, '--orphan-scan', '1s']);
    expect(cli.err()).toMatch(new RegExp(`serving http://127\\.0\\.0\\.1:${port}/metrics for the server \\(127\\.0\\.0\\.1:${server.port}\\); at most 21 groups \\(20 and other\\), [\\d,]+ lock series \\(\\d+ per group, kind and library\\)`));
    expect(cli.err()).not.toContain('exp-s3cret');
    await raw.set('orders:17', 'tok-a', 'PX', 5000, 'NX');
    await raw.set('orders:17', 'tok-b', 'PX', 5000, 'NX');
    expect(await within(15_000, async () => sum(await metrics(port), 'redlock_lock_acquisitions_total') === 1)).toBe(true);
    const text = await metrics(port);
    expect(text).toContain('redlock_lock_refusals_total{group="orders:{n}",kind="token",library="unknown"} 1');
    expect(text).toContain('redlock_lock_holders{group="orders:{n}",kind="token",library="unknown"} 1');
    expect(sum(text, 'redlock_exporter_scan_errors_total')).toBe(0);

    // A restart on the same port: said on stderr, followed again, counted.
    await server.stop();
    server = await startRedis({ port: server.port });
    raw.disconnect();
    raw = new Redis({ port: server.port, host: '127.0.0.1', retryStrategy: () => 200 });
    raw.on('error', () => undefined);
    await addUser(raw);
    await cli.waitFor(/export: lost the connection to 127\.0\.0\.1:\d+ .*; reconnecting/, 20_000);
    await cli.waitFor(/export: following 127\.0\.0\.1:\d+ again/, 40_000);
    await raw.set('orders:18', 'tok-c', 'PX', 5000, 'NX');
    expect(await within(15_000, async () => sum(await metrics(port), 'redlock_lock_acquisitions_total') === 2)).toBe(true);
    expect(sum(await metrics(port), 'redlock_exporter_reconnects_total')).toBe(1);
    // It never tried a command the read-only user may not run.
    // (An AUTH refused while the restarted server did not know the user yet is not a command.)
    const log = (await raw.call('ACL', 'LOG')) as unknown[][];
    expect(log.filter((entry) => entry[entry.indexOf('reason') + 1] !== 'auth'), JSON.stringify(log)).toEqual([]);

    process.kill(cli.pid, 'SIGTERM');
    expect(await cli.exited).toBe(0);
    await expect(metrics(port)).rejects.toThrow();
  }, 90_000);

  it('--source poll: holders, acquisitions and expiries from polled snapshots', async () => {
    const { cli, port } = await startExporter(['--url', server.url, '--source', 'poll', '--poll-every', '200ms', '--orphan-scan', '0', 'jobs:*']);
    expect(cli.err()).toContain(`for ${'127.0.0.1'}:${server.port} by polling every 0.2 s`);
    // Values ls recognises as locks: node-redlock's 32 hex characters.
    await raw.set('jobs:1', '0123456789abcdef0123456789abcdef', 'PX', 1500, 'NX');
    await raw.set('other', 'fedcba9876543210fedcba9876543210', 'PX', 1500, 'NX');
    expect(await within(10_000, async () => (await metrics(port)).includes('redlock_lock_holders{group="jobs:{n}",kind="token",library="node-redlock"} 1'))).toBe(true);
    expect(await within(10_000, async () => sum(await metrics(port), 'redlock_lock_expiries_total') === 1)).toBe(true);
    const text = await metrics(port);
    expect(sum(text, 'redlock_lock_acquisitions_total')).toBe(1);
    expect(text).not.toContain('group="other"');
    process.kill(cli.pid, 'SIGINT');
    expect(await cli.exited).toBe(0);
  }, 40_000);

  it('refuses bad input with one line and exit 2, before connecting', async () => {
    const cases: [string[], string][] = [
      [['--listen', 'nowhere'], 'redlock-cli: --listen "nowhere": expected host:port, e.g. 127.0.0.1:9479 (port 0: any free one)'],
      [['--group', 'orders:*'], `redlock-cli: --group "orders:*": expected <glob>=<group name>, e.g. --group 'orders:*=orders'`],
      [['--max-groups', '0'], 'redlock-cli: invalid --max-groups "0": use a whole number from 1 to 10000'],
      [['--enable-notifications'], 'redlock-cli: --enable-notifications goes with --source keyspace'],
    ];
    for (const [args, line] of cases) {
      const r = await runCli(['export', '--url', 'redis://127.0.0.1:1', ...args], env);
      expect([r.code, r.stderr.trim()]).toEqual([2, line]);
    }
  });

  it('says a --listen port that is taken, exit 2', async () => {
    const { cli, port } = await startExporter(['--url', server.url, '--orphan-scan', '0']);
    const r = await runCli(['export', '--url', server.url, '--listen', `127.0.0.1:${port}`], env);
    expect([r.code, r.stderr.trim()]).toEqual([2, `redlock-cli: --listen 127.0.0.1:${port}: cannot listen there: that port is in use; pick another with --listen host:port`]);
    process.kill(cli.pid, 'SIGTERM');
    expect(await cli.exited).toBe(0);
  }, 30_000);

  it('ships alerting rules that promtool accepts', () => {
    const out = execFileSync('promtool', ['check', 'rules', 'docs/prometheus/redlock-alerts.yml'], { encoding: 'utf8' });
    expect(out).toContain('SUCCESS: 8 rules found');
  });
});
