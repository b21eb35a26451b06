import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './redis-server.js';

// A real Prometheus (Debian's /usr/bin/prometheus, scripts/install-deps.sh) on a free loopback
// port, scraping given targets every second and evaluating rule files every second, in its own
// temp dir; stopped by pid.

export const PROMETHEUS = '/usr/bin/prometheus';

export interface PrometheusServer {
  readonly url: string;
  readonly pid: number;
  /** An instant query's vector: each sample's labels and value. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** The alerts Prometheus has now (pending and firing). */
  alerts(): Promise<{ labels: Record<string, string>; state: string }[]>;
  stop(): Promise<void>;
}

async function getJson(url: string): Promise<{ status: string; data: unknown; error?: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return (await res.json()) as { status: string; data: unknown; error?: string };
}

export async function startPrometheus(targets: readonly string[], ruleFiles: readonly string[] = []): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-prometheus-'));
  const port = await freePort();
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 900ms',
    '  evaluation_interval: 1s',
    `rule_files: [${ruleFiles.map((f) => JSON.stringify(resolve(f))).join(', ')}]`,
    'scrape_configs:',
    '  - job_name: redlock',
    `    static_configs: [{ targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}] }]`,
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: process.env },
  );
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
    const killed = setTimeout(() => child.exitCode === null && process.kill(child.pid!, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(killed);
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > until || child.exitCode !== null) {
      await stop();
      throw new Error(`Prometheus did not become ready on ${url}:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid!,
    async query(expr) {
      const body = await getJson(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      if (body.status !== 'success') throw new Error(`query ${expr}: ${body.error}`);
      const result = (body.data as { result: { metric: Record<string, string>; value: [number, string] }[] }).result;
      return result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    async alerts() {
      const body = await getJson(`${url}/api/v1/alerts`);
      return (body.data as { alerts: { labels: Record<string, string>; state: string }[] }).alerts;
    },
    stop,
  };
}

/** Polls `check` every 500 ms until it returns true, for at most `timeoutMs`; returns its last answer. */
export async function within(timeoutMs: number, check: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Prometheus's histogram_quantile over plain values bucketed at `bounds` (upper bounds, `le`
 * inclusive, ascending; +Inf implied): the rank's bucket found, then linear interpolation inside
 * it, as promql's bucketQuantile does. So values measured elsewhere can be compared with
 * Prometheus's answer at the same resolution.
 */
export function bucketQuantile(q: number, values: readonly number[], bounds: readonly number[]): number {
  const counts = bounds.map((b) => values.filter((v) => v <= b).length);
  const rank = q * values.length;
  const b = counts.findIndex((c) => c >= rank);
  if (b === -1) return bounds.at(-1)!;
  const start = b === 0 ? 0 : bounds[b - 1]!;
  const below = b === 0 ? 0 : counts[b - 1]!;
  return start + (bounds[b]! - start) * ((rank - below) / (counts[b]! - below));
}
