import { spawnSync } from 'node:child_process';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenLockEnv } from '../../src/locks/env.js';
import { tokenLock } from '../../src/locks/token.js';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { rawClient, testEnv, owner } from '../helpers/lock-env.js';
import { within } from '../helpers/prometheus.js';
import { freePort, startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { eventually } from '../helpers/sandbox.js';
import { metricSum, scrape } from './export-scrape.js';
import { stageDeadlock, stageLongWait } from './stuck-traffic.js';

// `trace`'s findings as the exporter counts them, on real traffic: a token lock whose lease runs
// out while its holder still acts (it releases after another client took the lock: an overlap),
// and a lock set without a TTL by a client that then disconnects while another waits (a deadlock),
// each beside its healthy twin (the holder releases in time; the holder has a lease and releases),
// scraped over HTTP from the built CLI.

const FINDINGS = 'redlock_lock_findings_total';
/** Each finding kind's class, as docs/guide/export.md gives it. */
const CLASS_OF: Readonly<Record<string, string>> = {
  'expired-while-held': 'unsafe',
  overlap: 'unsafe',
  'silent-reacquire': 'unsafe',
  'foreign-delete': 'unsafe',
  'lost-in-failover': 'unsafe',
  deadlock: 'liveness',
  starvation: 'liveness',
  'no-ttl': 'warning',
  'renewal-gap': 'warning',
  'overdue-queue-head': 'warning',
  'unchecked-release': 'warning',
};

let server: RedisServer;
let env: OpenLockEnv;
let raw: Redis;
let exporter: CliProcess;
let port: number;

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
  env = await testEnv(server);
  raw = rawClient(server);
  port = await freePort();
  exporter = spawnCli(['export', '--url', server.url, '--listen', `127.0.0.1:${port}`, '--orphan-scan', '0'], tempStateEnv(), 120_000);
  await exporter.waitFor(/export: serving http/);
}, 60_000);

afterAll(async () => {
  if (exporter) {
    process.kill(exporter.pid, 'SIGTERM');
    await exporter.exited;
  }
  killStartedClis();
  raw?.disconnect();
  await env?.close();
  await server?.stop();
});

/** The findings series of one group, as `finding class value` lines (sorted). */
function findingsOf(text: string, group: string): string[] {
  const series = new RegExp(`^${FINDINGS}\\{group="${group.replace(/[{}]/g, '\\$&')}",kind="([^"]+)",library="([^"]+)",finding="([^"]+)",class="([^"]+)"\\} (\\S+)$`, 'gm');
  return [...text.matchAll(series)].map((m) => `${m[1]} ${m[2]} ${m[3]} ${m[4]} ${m[5]}`).sort();
}

describe('export counts the findings trace would report', () => {
  it('an overlap and a deadlock, each counted once with its class; their healthy twins count zero; promtool accepts the exposition', async () => {
    // A token lock on a 300 ms lease; its holder goes on without renewing.
    const stale = { key: 'stale:1', owner: owner(1), leaseMs: 300 };
    expect((await tokenLock.tryAcquire(env, stale)).acquired).toBe(true);
    await eventually(async () => (await raw.exists('stale:1')) === 0, 15_000);
    const next = { key: 'stale:1', owner: owner(2), leaseMs: 10_000 };
    expect((await tokenLock.tryAcquire(env, next)).acquired).toBe(true);
    // Back from its work, the first holder releases as if it still held the lock: refused.
    expect(await tokenLock.release(env, stale)).toBe('not-owner');
    expect(await tokenLock.release(env, next)).toBe('released');
    // Its twin: the holder releases within its lease, then the next takes it.
    const calm = { key: 'calm:1', owner: owner(1), leaseMs: 10_000 };
    expect((await tokenLock.tryAcquire(env, calm)).acquired).toBe(true);
    expect(await tokenLock.release(env, calm)).toBe('released');
    expect((await tokenLock.tryAcquire(env, { ...calm, owner: owner(2) })).acquired).toBe(true);

    // Set with no TTL by a client that disconnects while another waits; its twin's holder has a lease and releases.
    await stageDeadlock(server, env, raw, 'dead:1');
    await stageLongWait(env, raw, 'busy:1');

    // The last acquisition scraped: everything before it was decoded.
    const acquisitions = (text: string) => metricSum(text.split('\n').filter((l) => l.includes('group="busy:{n}"')).join('\n'), 'redlock_lock_acquisitions_total');
    expect(await within(20_000, async () => acquisitions(await scrape(port)) === 2)).toBe(true);
    const text = await scrape(port);
    const [kind, library] = /^redlock_lock_acquisitions_total\{group="stale:\{n\}",kind="([^"]+)",library="([^"]+)"\}/m.exec(text)!.slice(1);
    /** Every kind's series of a label set, at 0 but for `counts`. */
    const expected = (counts: Record<string, number> = {}) => Object.entries(CLASS_OF).map(([f, cls]) => `${kind} ${library} ${f} ${cls} ${counts[f] ?? 0}`).sort();
    expect(findingsOf(text, 'stale:{n}')).toEqual(expected({ 'expired-while-held': 1, overlap: 1 }));
    expect(findingsOf(text, 'dead:{n}')).toEqual(expected({ 'no-ttl': 1, deadlock: 1 }));
    expect(findingsOf(text, 'calm:{n}')).toEqual(expected());
    expect(findingsOf(text, 'busy:{n}')).toEqual(expected());
    // The selectors an alert uses: anything unsafe, any deadlock.
    const selected = (match: (line: string) => boolean) => metricSum(text.split('\n').filter(match).join('\n'), FINDINGS);
    expect(selected((l) => l.includes('class="unsafe"'))).toBe(2);
    expect(selected((l) => l.includes('finding="deadlock"'))).toBe(1);

    // Prometheus's own linter reads the whole exposition: names, types, help, label sets. It only
    // objects to three gauges of prom-client's Node.js metrics named *_total (not the exporter's own).
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    const problems = `${lint.stdout}${lint.stderr}`.split('\n').filter((l) => l.trim() !== '');
    expect(problems.filter((l) => !/^redlock_exporter_nodejs_active_\w+_total non-counter metrics should not have "_total" suffix$/.test(l))).toEqual([]);
  }, 90_000);
});
