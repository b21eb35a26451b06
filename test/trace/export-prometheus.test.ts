import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile } from '../../src/core/race/stats.js';
import type { HistoryEvent } from '../../src/core/scenario/history.js';
import type { RaceResult } from '../../src/race/run.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { startPrometheus, within, type PrometheusServer } from '../helpers/prometheus.js';
import { freePort } from '../helpers/redis-server.js';
import { env, plan, race } from '../race/helpers.js';

// The exporter end to end, as an operator runs it: the built CLI serving /metrics, a real
// Prometheus scraping it every second with the shipped alerting rules, and a race on a sandbox
// with a chaos pause (a holder frozen past its lease). Afterwards Prometheus's own answers must
// equal the race's own counts (acquisitions, refusals, expiries); its wait and hold percentiles
// equal, within 5 % or 2 ms, those `trace` computes from the same server events with exact
// (1 %) histograms; and the expired-while-held alert fires.
//
// The race's own durations are measured at its clients, so each includes client round trips the
// server never sees (on a machine at load 20 and more, 5 to 15 ms each): they bound the server's
// figures from one side only. A hold lasts on the server at least from the client's grant to its
// release call; a wait there is at most what the client waited. Those bounds are asserted too.

const RULES = 'docs/prometheus/redlock-alerts.yml';

let sandbox: SandboxHandle;
let exporter: CliProcess;
let prometheus: PrometheusServer;
let result: RaceResult;
let tracer: CliProcess;

beforeAll(async () => {
  ensureBuilt();
  sandbox = await startSandbox({ topology: 'single', name: 'export-race', dir: join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes'), env });
  const port = await freePort();
  exporter = spawnCli(['export', '--url', `redis://127.0.0.1:${sandbox.nodes[0]!.port}`, '--listen', `127.0.0.1:${port}`, '--orphan-scan', '0'], env, 120_000);
  await exporter.waitFor(/export: serving http/);
  prometheus = await startPrometheus([`127.0.0.1:${port}`], [RULES]);
  // Prometheus has scraped the exporter before the race begins (the up series exists).
  expect(await within(20_000, async () => (await prometheus.query('redlock_exporter_up')).length === 1)).toBe(true);
  tracer = spawnCli(['trace', '--url', `redis://127.0.0.1:${sandbox.nodes[0]!.port}`, '--json'], env, 120_000);
  await tracer.waitFor(/trace: following/);
  // Token locks: a release after the lease ran out is refused to the client as well (a Redisson
  // fair unlock of a lock already gone answers 1, so that race would not count such an expiry).
  result = await race(plan('', { kind: 'token', clients: 5, durationMs: 6000, leaseMs: 300, holdMs: 20, holdDist: 'uniform', waitMs: 10_000, chaos: 'pause', chaosEveryMs: 1200, target: { type: 'sandbox', name: 'export-race' } }));
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  if (tracer && tracer.child.exitCode === null) process.kill(tracer.pid, 'SIGTERM');
  if (exporter) {
    process.kill(exporter.pid, 'SIGTERM');
    await exporter.exited;
  }
  killStartedClis();
  await sandbox?.stop();
}, 60_000);

const total = async (metric: string): Promise<number> => (await prometheus.query(`sum(${metric})`))[0]?.value ?? 0;

/** The race's own hold times at its clients (ms): from each grant to that client's release call. */
function raceHolds(r: RaceResult): number[] {
  const holds: number[] = [];
  for (const k of r.keys) {
    const since = new Map<string, number>();
    for (const e of k.history.events as HistoryEvent[]) {
      if (e.kind !== 'op') continue;
      if (e.op === 'acquire' && e.phase === 'ok') since.set(e.client, e.t);
      if (e.op === 'release' && e.phase === 'invoke' && since.has(e.client)) {
        holds.push(e.t - since.get(e.client)!);
        since.delete(e.client);
      }
    }
  }
  return holds.sort((a, b) => a - b);
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

  it('gives the wait and hold percentiles (p50, p99) of the same events within 5 % or 2 ms, inside the race\'s own bounds', async () => {
    expect(await total('redlock_lock_hold_seconds_count')).toBeGreaterThan(20);
    process.kill(tracer.pid, 'SIGINT');
    // 7: the trace saw the paused holder's expiry as unsafe, as the exporter did.
    expect(await tracer.exited).toBe(7);
    const summary = JSON.parse(tracer.out().trim().split('\n').at(-1)!) as { locks: { lock: string; holdMs: { p50: number; p99: number }; waitMs: { p50: number; p99: number } }[] };
    const lock = summary.locks.find((l) => l.lock === 'orders')!;
    const quantile = async (q: number, metric: string) => 1000 * (await prometheus.query(`histogram_quantile(${q}, sum by (le) (${metric}))`))[0]!.value;
    const waits = 'redlock_lock_acquire_wait_seconds_bucket{outcome="acquired"}';
    const holds = 'redlock_lock_hold_seconds_bucket';
    const prom = { waitP50: await quantile(0.5, waits), waitP99: await quantile(0.99, waits), holdP50: await quantile(0.5, holds), holdP99: await quantile(0.99, holds) };
    const traced = { waitP50: lock.waitMs.p50, waitP99: lock.waitMs.p99, holdP50: lock.holdMs.p50, holdP99: lock.holdMs.p99 };
    const figures = JSON.stringify({ prom, traced, race: result.stats.waits });
    for (const k of Object.keys(prom) as (keyof typeof prom)[]) expect(close(prom[k], traced[k]), `${k}: ${figures}`).toBe(true);
    const clientHolds = raceHolds(result);
    expect(prom.holdP50, figures).toBeGreaterThanOrEqual(percentile(clientHolds, 0.5) - 2);
    expect(prom.waitP50, figures).toBeLessThanOrEqual(result.stats.waits.p50 + 2);
    expect(prom.waitP99, figures).toBeLessThanOrEqual(result.stats.waits.p99 * 1.05 + 2);
  }, 30_000);

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
