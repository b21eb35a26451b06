// `trace --from` as a benchmark: generated `redis-cli monitor` logs (50 clients taking and
// releasing their own locks, the release a compare-and-delete script: every line is lock traffic)
// of 1x, 2x and 4x a size (default 512 MB, so the 4x log is 2 GB), each read by the built CLI
// with --json into /dev/null. Per log: MONITOR lines per second of CPU (user + system) and of
// wall time, the child's peak RSS (getrusage maxrss, written by a preload as it exits), and the
// load average beside it (the machine may be shared). Streaming means time linear in the file
// (CPU per line of the 2x and 4x logs within 15 % of the 1x one) and RSS flat (under 256 MB); the
// rate target (300,000 lines per CPU-second, one thread) is checked on every log. The three logs
// are read in turn, READS rounds (default 2), each log's fastest read kept: CPU time for the same
// work moves 10-20 % from run to run on a shared machine, and one slow or fast read of the 1x log
// would decide the linearity. The logs (3.5 GB at the default size) are written under os.tmpdir()
// first and deleted at the end.
//   npx tsx bench/trace-from.ts [1x size in MB, default 512]      (npm run build first)
import { spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { writeMonitorLog } from '../test/helpers/monitor-log.js';

const MB = 2 ** 20;
const size = Number(process.argv[2] ?? 512) * MB;
/** The targets: peak RSS, and CPU per line of the larger logs against the 1x one. */
const RSS_LIMIT_MIB = 256;
const LINEAR_WITHIN = 0.15;
/** MONITOR lines per second of CPU: per CPU-second, so it holds however busy the machine is. */
const RATE_TARGET = 300_000;
/** Reads of each log; the fastest is kept (BENCH_FROM_READS). */
const READS = Math.max(1, Number(process.env.BENCH_FROM_READS ?? 2));
const dir = mkdtempSync(join(os.tmpdir(), 'redlock-bench-from-'));
const CLI = join(import.meta.dirname, '../bin/redlock-cli.js');
const PRELOAD = join(dir, 'usage.cjs');
writeFileSync(
  PRELOAD,
  "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.USAGE_FILE, JSON.stringify({ rssKiB: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime })); });\n",
);

interface Run {
  readonly lines: number;
  readonly mb: number;
  readonly cpuS: number;
  readonly wallS: number;
  readonly rssMiB: number;
  /** Load average (1 min) when the run ended. */
  readonly load: number;
}

async function measure(file: string): Promise<Run> {
  const usage = `${file}.usage`;
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', PRELOAD, CLI, 'trace', '--from', file, '--json'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: dir, USAGE_FILE: usage },
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`trace --from ${file} exited ${code}`);
  const u = JSON.parse(readFileSync(usage, 'utf8')) as { rssKiB: number; cpuUs: number };
  const lines = await countLines(file);
  return {
    lines,
    mb: statSync(file).size / MB,
    cpuS: u.cpuUs / 1e6,
    wallS: (performance.now() - started) / 1000,
    rssMiB: u.rssKiB / 1024,
    load: os.loadavg()[0]!,
  };
}

/** Line breaks in a file, counted in chunks (a 2 GB log is never held). */
async function countLines(file: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
  }
  return lines;
}

async function main(): Promise<void> {
  console.log(
    `trace --from bench: take-and-release monitor logs of ${size / MB}, ${(2 * size) / MB} and ${(4 * size) / MB} MB, --json to /dev/null`,
  );
  console.log('| log | MONITOR lines | lines per CPU-second | lines/s (wall) | CPU s | wall s | peak RSS | CPU per line vs 1x | load average |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  let first: Run | undefined;
  const problems: string[] = [];
  const slow: string[] = [];
  // All three logs first, then READS rounds reading each in turn: a machine that speeds up or
  // slows down during the bench moves every size alike, not one.
  const sizes = [1, 2, 4];
  const files = sizes.map((times) => join(dir, `monitor-${times}x.log`));
  for (const [k, file] of files.entries()) await writeMonitorLog(file, 'released', sizes[k]! * size);
  const reads: Run[][] = sizes.map(() => []);
  for (let round = 0; round < READS; round++) for (const [k, file] of files.entries()) reads[k]!.push(await measure(file));
  for (const file of files) rmSync(file);
  for (const [k, times] of sizes.entries()) {
    const fastest = reads[k]!.reduce((best, run) => (run.cpuS < best.cpuS ? run : best));
    // Memory is a bound, not a speed: the highest peak of any read.
    const r = { ...fastest, rssMiB: Math.max(...reads[k]!.map((run) => run.rssMiB)) };
    first ??= r;
    const perLine = r.cpuS / r.lines / (first.cpuS / first.lines);
    const rate = (s: number) => Math.round(r.lines / s).toLocaleString('en');
    console.log(
      `| ${times}x (${Math.round(r.mb)} MB) | ${r.lines.toLocaleString('en')} | ${rate(r.cpuS)} | ${rate(r.wallS)} | ${r.cpuS.toFixed(1)} | ${r.wallS.toFixed(1)} | ${Math.round(r.rssMiB)} MiB | ${perLine.toFixed(2)} | ${r.load.toFixed(1)} |`,
    );
    if (r.rssMiB >= RSS_LIMIT_MIB) problems.push(`${times}x: peak RSS ${Math.round(r.rssMiB)} MiB, over ${RSS_LIMIT_MIB}`);
    if (r.lines / r.cpuS < RATE_TARGET) slow.push(`${times}x`);
    if (Math.abs(perLine - 1) > LINEAR_WITHIN) problems.push(`${times}x: CPU per line ${perLine.toFixed(2)}x the 1x log's, not within ${LINEAR_WITHIN * 100} %`);
  }
  console.log(problems.length === 0 ? `streaming: peak RSS under ${RSS_LIMIT_MIB} MiB, CPU per line within ${LINEAR_WITHIN * 100} % of the 1x log's` : `NOT streaming: ${problems.join('; ')}`);
  const target = RATE_TARGET.toLocaleString('en');
  console.log(slow.length === 0 ? `rate: at least ${target} lines per CPU-second on every log` : `rate: under ${target} lines per CPU-second on ${slow.join(', ')}`);
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; load average at the end (1, 5, 15 min): ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')}`,
  );
  rmSync(dir, { recursive: true, force: true });
}

await main();
