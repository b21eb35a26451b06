// `trace --from` as a benchmark: generated `redis-cli monitor` logs (50 clients taking and
// releasing their own locks, the release a compare-and-delete script) of 1x, 2x and 4x a size,
// each read by the built CLI with --json into /dev/null. Per log: MONITOR lines per second of CPU,
// CPU and wall time, and the child's peak RSS (getrusage maxrss, written by a preload as it
// exits). Streaming means time linear in the file and RSS flat.
//   npx tsx bench/trace-from.ts [1x size in MB, default 50]      (npm run build first)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { writeMonitorLog } from '../test/helpers/monitor-log.js';

const MB = 2 ** 20;
const size = Number(process.argv[2] ?? 50) * MB;
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
  const text = readFileSync(file, 'latin1');
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  return {
    lines,
    mb: statSync(file).size / MB,
    cpuS: u.cpuUs / 1e6,
    wallS: (performance.now() - started) / 1000,
    rssMiB: u.rssKiB / 1024,
  };
}

async function main(): Promise<void> {
  console.log(
    `trace --from bench: take-and-release monitor logs of ${size / MB}, ${(2 * size) / MB} and ${(4 * size) / MB} MB, --json to /dev/null`,
  );
  console.log('| log | MONITOR lines | lines/s (CPU) | CPU s | wall s | peak RSS | CPU per line vs 1x |');
  console.log('|---|---|---|---|---|---|---|');
  let first: Run | undefined;
  for (const times of [1, 2, 4]) {
    const file = join(dir, `monitor-${times}x.log`);
    await writeMonitorLog(file, 'released', times * size);
    const r = await measure(file);
    rmSync(file);
    first ??= r;
    const perLine = r.cpuS / r.lines / (first.cpuS / first.lines);
    console.log(
      `| ${times}x (${Math.round(r.mb)} MB) | ${r.lines.toLocaleString('en')} | ${Math.round(r.lines / r.cpuS).toLocaleString('en')} | ${r.cpuS.toFixed(1)} | ${r.wallS.toFixed(1)} | ${Math.round(r.rssMiB)} MiB | ${perLine.toFixed(2)} |`,
    );
  }
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}; load average at the end (1, 5, 15 min): ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')}`,
  );
  rmSync(dir, { recursive: true, force: true });
}

await main();
