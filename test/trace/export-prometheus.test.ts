import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RaceResult } from '../../src/race/run.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { bucketQuantile, startPrometheus, within, type PrometheusServer } from '../helpers/prometheus.js';
import { freePort } from '../helpers/redis-server.js';
import { env, ops, plan, race } from '../race/helpers.js';

// The exporter end to end, as an operator runs it: the built CLI serving /metrics, a real
// Prometheus scraping it every second with the shipped alerting rules, and a race on a sandbox
// with a chaos pause (a holder frozen past its lease). Afterwards Prometheus's own answers must
// equal the race's own counts (acquisitions, refusals, expiries); its wait and hold percentiles
// and means equal, within 5 % or 2 ms, the race's own waits and holds on the server's clock; and
// the expired-while-held alert fires.
//
// The race's server-timed figures (TIME pipelined behind each of its lock commands) are the ones
// to compare: its client-timed waits include round trips and scheduling the server never sees
// (on a machine at load 20 and more, 5 to 15 ms each). Prometheus only has bucket counts, so the
// race's values are bucketed at the exporter's own bounds (read back from Prometheus) and their
// quantiles estimated as histogram_quantile does: like with like. The means (the exporter's _sum
// over _count, exact) catch a wait or hold measured from the wrong event even where it would
// hide inside a bucket.

const RULES = 'docs/prometheus/redlock-alerts.yml';

let sandbox: SandboxHandle;
let exporter: CliProcess;
let prometheus: PrometheusServer;
let result: RaceResult;

beforeAll(async () => {
  ensureBuilt();
  sandbox = await startSandbox({ topology: 'single', name: 'export-race', dir: join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes'), env });
  const port = await freePort();
  exporter = spawnCli(['export', '--url', `redis://127.0.0.1:${sandbox.nodes[0]!.port}`, '--listen', `127.0.0.1:${port}`, '--orphan-scan', '0'], env, 120_000);
  await exporter.waitFor(/export: serving http/);
  prometheus = await startPrometheus([`127.0.0.1:${port}`], [RULES]);
  // Prometheus has scraped the exporter before the race begins (the up series exists).
  expect(await within(20_000, async () => (await prometheus.query('redlock_exporter_up')).length === 1)).toBe(true);
  // Token locks: a release after the lease ran out is refused to the client as well (a Redisson
  // fair unlock of a lock already gone answers 1, so that race would not count such an expiry).
  result = await race(plan('', { kind: 'token', clients: 5, durationMs: 6000, leaseMs: 300, holdMs: 20, holdDist: 'uniform', waitMs: 10_000, chaos: 'pause', chaosEveryMs: 1200, target: { type: 'sandbox', name: 'export-race' } }));
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  if (exporter) {
    process.kill(exporter.pid, 'SIGTERM');
    await exporter.exited;
  }
  killStartedClis();
  await sandbox?.stop();
}, 60_000);

const total = async (metric: string): Promise<number> => (await prometheus.query(`sum(${metric})`))[0]?.value ?? 0;

/** The race's server-timed waits and holds (ms), one per acquisition and per release. */
function serverTimed(r: RaceResult): { waits: number[]; holds: number[] } {
  return {
    waits: ops(r, 'acquire', 'ok').flatMap((e) => (e.serverWaitMs !== undefined ? [e.serverWaitMs] : [])),
    holds: ops(r, 'release', 'ok').flatMap((e) => (e.serverHoldMs !== undefined ? [e.serverHoldMs] : [])),
  };
}

/** Within 5 % or 2 ms. */
const close = (a: number, b: number): boolean => Math.abs(a - b) <= Math.max(2, 0.05 * b);

describe('export scraped by a real Prometheus during a race', () => {
  it('stores the race counts: acquisitions, refusals, expiries', async () => {
    const s = result.stats;
    expect(s.acquisitions).toBeGreaterThan(20);
    expect(s.refusals).toBeGreaterThan(0);
    expect(s.lostLocks).toBeGreaterThan(0);
    expect(s.timeouts).toBe(0);
    const want = { acquisitions: s.acquisitions, refusals: s.refusals, expiries: s.lostLocks };
    let got = {};
    // Bounded: the last events reach the exporter within a fence, Prometheus within a scrape.
    const equal = await within(20_000, async () => {
      got = {
        acquisitions: await total('redlock_lock_acquisitions_total'),
        refusals: await total('redlock_lock_refusals_total'),
        expiries: await total('redlock_lock_expiries_total'),
      };
      return JSON.stringify(got) === JSON.stringify(want);
    });
    expect(got, JSON.stringify({ got, want, lost: s.lostLocks, notOwner: s.notOwner, faults: s.faults })).toEqual(want);
    expect(equal).toBe(true);
  }, 60_000);

  it("gives the race's server-timed wait and hold percentiles (p50, p90, p99) and means within 5 % or 2 ms", async () => {
    const race = serverTimed(result);
    // Every acquisition's wait and every hold the race timed on the server: one per event it counted.
    expect(race.waits.length).toBe(result.stats.acquisitions);
    expect(race.holds.length).toBe(result.stats.acquisitions);
    expect(result.stats.serverTimed?.holds.count).toBe(race.holds.length);
    const metrics = { wait: 'redlock_lock_acquire_wait_seconds', hold: 'redlock_lock_hold_seconds' } as const;
    const selector = { wait: '{outcome="acquired"}', hold: '' } as const;
    // Every observation has reached Prometheus (the last holds end with the race, a scrape later).
    const counted = await within(20_000, async () => (await total(`${metrics.hold}_count`)) === race.holds.length && (await total(`${metrics.wait}_count${selector.wait}`)) === race.waits.length);
    expect(counted, JSON.stringify({ holds: await total(`${metrics.hold}_count`), race: race.holds.length })).toBe(true);
    const rows: string[] = [];
    for (const what of ['wait', 'hold'] as const) {
      const values = what === 'wait' ? race.waits : race.holds;
      const buckets = await prometheus.query(`sum by (le) (${metrics[what]}_bucket${selector[what]})`);
      const bounds = buckets.map((b) => Number(b.metric.le)).filter(Number.isFinite).sort((x, y) => x - y).map((b) => b * 1000);
      expect(bounds.length).toBeGreaterThan(100);
      const mean = (1000 * (await total(`${metrics[what]}_sum${selector[what]}`))) / values.length;
      const compared: [string, number, number][] = [['mean', mean, values.reduce((a, b) => a + b, 0) / values.length]];
      for (const q of [0.5, 0.9, 0.99]) {
        const prom = 1000 * (await prometheus.query(`histogram_quantile(${q}, sum by (le) (${metrics[what]}_bucket${selector[what]}))`))[0]!.value;
        compared.push([`p${q * 100}`, prom, bucketQuantile(q, values, bounds)]);
      }
      for (const [name, prom, own] of compared) rows.push(`${what} ${name}: prometheus ${prom.toFixed(2)} race ${own.toFixed(2)}${close(prom, own) ? '' : ' FAR'}`);
    }
    expect(rows.filter((r) => r.endsWith('FAR')), rows.join('\n')).toEqual([]);
    // The chaos pause made holds that ran out: the hold tail is the lease's end, not the late release.
    expect(result.stats.serverTimed!.holds.max, rows.join('\n')).toBeGreaterThanOrEqual(300 - 2);
  }, 60_000);

  it('fires the expired-while-held alert (the paused holder released after its lease ran out)', async () => {
    const firing = await within(30_000, async () => (await prometheus.alerts()).some((a) => a.labels.alertname === 'RedlockLockExpiredWhileHeld' && a.state === 'firing'));
    expect(await total('redlock_lock_expired_while_held_total')).toBeGreaterThan(0);
    expect(firing).toBe(true);
  }, 40_000);

  it('answers every query of the shipped Grafana dashboard, and the panels of the race have data', async () => {
    const dashboard = JSON.parse(readFileSync('docs/grafana/redlock-dashboard.json', 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const empty: string[] = [];
    for (const panel of dashboard.panels) {
      for (const { expr } of panel.targets) {
        // Grafana's variables, as it would fill them: every group, a rate window of a few scrapes.
        const rows = await prometheus.query(expr.replaceAll('$group', '.*').replaceAll('$__rate_interval', '1m'));
        if (rows.length === 0) empty.push(`${panel.title}: ${expr}`);
      }
    }
    const race = ['Acquisitions and refusals per second', 'Acquire wait p50 / p99', 'Hold time p50 / p99', 'Holders and waiters'];
    expect(empty.filter((e) => race.some((title) => e.startsWith(title)))).toEqual([]);
  }, 30_000);
});
