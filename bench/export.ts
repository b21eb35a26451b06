// `export` as a benchmark, on one redis-server: (1) a paced load of BENCH_EXPORT_RATE lock
// operations per second for BENCH_EXPORT_SECONDS without the exporter, then with it attached
// (the built CLI, MONITOR source, scraped once a second as Prometheus would): the server's CPU
// both times (the exporter's extra cost there), the exporter's own CPU (and per million events)
// and its resident memory;
// (2) the series /metrics serves for 10,000 distinct locks, named by number (collapsed into one
// group) and named so nothing collapses (the group cap holds). CPU is read from /proc by pid.
//   npm run bench     (BENCH_EXPORT_SECONDS=20, BENCH_EXPORT_RATE=20000)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Redis } from 'ioredis';
import { percentiles } from '../src/core/race/stats.js';
import { freePort, startRedis, type RedisServer } from '../test/helpers/redis-server.js';
import { lockLoad } from './lock-load.js';

const SECONDS = Number(process.env.BENCH_EXPORT_SECONDS ?? 20);
const RATE = Number(process.env.BENCH_EXPORT_RATE ?? 20_000);
const LOCKS = 10_000;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Runs `work` and returns the CPU seconds each pid used meanwhile, and as a share of one core (percent). */
async function cpuDuring<T>(pids: readonly number[], work: () => Promise<T>): Promise<{ result: T; cpu: number[]; pct: number[] }> {
  const before = pids.map(cpuSeconds);
  const started = Date.now();
  const result = await work();
  const seconds = (Date.now() - started) / 1000;
  const cpu = pids.map((pid, i) => cpuSeconds(pid) - before[i]!);
  return { result, cpu, pct: cpu.map((c) => (c / seconds) * 100) };
}

interface Exporter {
  readonly child: ChildProcess;
  readonly port: number;
  stop(): Promise<void>;
}

async function startExporter(server: RedisServer): Promise<Exporter> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/redlock-cli.js', 'export', '--url', server.url, '--listen', `127.0.0.1:${port}`, '--orphan-scan', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const until = Date.now() + 30_000;
  while (!err.includes('export: serving')) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`the exporter did not start:\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return { child, port, stop: async () => (process.kill(child.pid!, 'SIGTERM'), await exited) };
}

const scrape = async (port: number): Promise<string> => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
const value = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

/** 10,000 locks named by `name(i)`, each taken once, then the series the exporter serves. */
async function seriesFor(server: RedisServer, name: (i: number) => string): Promise<{ series: number; groups: number; overflow: number }> {
  const raw = new Redis({ port: server.port, host: '127.0.0.1' });
  await raw.flushall();
  const exporter = await startExporter(server);
  try {
    for (let i = 0; i < LOCKS; i += 500) {
      const p = raw.pipeline();
      for (let j = i; j < i + 500; j++) p.set(name(j), `token-${j}`, 'PX', 60_000, 'NX');
      await p.exec();
    }
    let text = '';
    for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 500))) {
      text = await scrape(exporter.port);
      if (value(text, 'redlock_exporter_events_total') >= 2 * LOCKS) break;
    }
    text = await scrape(exporter.port);
    return { series: value(text, 'redlock_exporter_series'), groups: value(text, 'redlock_exporter_groups'), overflow: value(text, 'redlock_exporter_group_overflow') };
  } finally {
    raw.disconnect();
    await exporter.stop();
  }
}

async function main(): Promise<void> {
  const server = await startRedis();
  const load = () => lockLoad(server.port, { rate: RATE, seconds: SECONDS, connections: 8, keys: 64 });
  try {
    console.log(`export bench: redis-server on ${server.port}; ${RATE} lock ops/s for ${SECONDS} s (token locks, 8 connections, 64 keys), exporter scraped every 1 s`);
    const bare = await cpuDuring([server.pid], load);
    const exporter = await startExporter(server);
    const rss: number[] = [];
    const scraper = setInterval(() => {
      void scrape(exporter.port);
      rss.push(rssMb(exporter.child.pid!));
    }, 1000);
    const traced = await cpuDuring([server.pid, exporter.child.pid!], load);
    clearInterval(scraper);
    const text = await scrape(exporter.port);
    await exporter.stop();
    const rate = (r: { ops: number }) => Math.round(r.ops / SECONDS);
    console.log(`redis-server CPU: ${bare.pct[0]!.toFixed(0)} % of a core without the exporter (${rate(bare.result)} ops/s), ${traced.pct[0]!.toFixed(0)} % with it (${rate(traced.result)} ops/s)`);
    // Per event, the exporter's CPU does not depend on the rate a busy machine let the load reach.
    const perMillion = (traced.cpu[1]! / value(text, 'redlock_exporter_events_total')) * 1e6;
    console.log(`exporter: ${traced.pct[1]!.toFixed(0)} % of a core, ${perMillion.toFixed(1)} s of CPU per million events; resident memory p50 ${percentiles(rss).p50.toFixed(0)} MB, max ${Math.max(...rss).toFixed(0)} MB; lag at the end ${(value(text, 'redlock_exporter_lag_seconds') * 1000).toFixed(0)} ms; ${value(text, 'redlock_exporter_events_total')} events`);
    const numbered = await seriesFor(server, (i) => `bench:lock:${i}`);
    console.log(`series for ${LOCKS} locks named bench:lock:<n>: ${numbered.series} (${numbered.groups} group)`);
    const words = await seriesFor(server, (i) => `bench-${i.toString(36).replace(/\d/g, (d) => 'qrstuvwxyz'[Number(d)]!)}`);
    console.log(`series for ${LOCKS} locks whose names do not collapse: ${words.series} (${words.groups} groups and other; ${words.overflow} names in other)`);
    console.log(`machine load average at the end (1, 5, 15 min): ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
  } finally {
    await server.stop();
  }
}

await main();
