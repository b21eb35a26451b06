// Start-up of one-shot commands as processes, in paired runs: each round runs every contender
// once, in an order that rotates, so machine load falls on all of them alike. Each child is
// preloaded with bench/cpu-at-exit.mjs, which reports its own CPU time (user + system); wall time
// is spawn to exit as seen here. Medians of the rounds, and the median of the per-round ratios.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Timing {
  readonly cpuMs: number;
  readonly wallMs: number;
}

const CPU_HOOK = new URL('./cpu-at-exit.mjs', import.meta.url).href;

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Runs `node <args>` once with output discarded; its CPU (from the child) and wall time. */
async function timeNode(args: readonly string[], cpuFile: string): Promise<Timing> {
  writeFileSync(cpuFile, '');
  const started = performance.now();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', CPU_HOOK, ...args], {
      stdio: 'ignore',
      env: { ...process.env, BENCH_CPU_FILE: cpuFile, FORCE_COLOR: '0' },
    });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}`);
  const cpuMs = Number(readFileSync(cpuFile, 'utf8').trim()) / 1000;
  return { cpuMs, wallMs };
}

export interface Pair {
  readonly runs: number;
  readonly subject: Timing;
  readonly floor: Timing;
  /** Median over rounds of subject CPU / floor CPU. */
  readonly cpuRatio: number;
  readonly wallRatio: number;
}

/** `runs` rounds of subject and floor, alternating which goes first; medians. */
export async function pairedRuns(runs: number, subject: readonly string[], floor: readonly string[]): Promise<Pair> {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-bench-startup-'));
  const cpuFile = join(dir, 'cpu');
  const subjects: Timing[] = [];
  const floors: Timing[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      if (i % 2 === 0) {
        subjects.push(await timeNode(subject, cpuFile));
        floors.push(await timeNode(floor, cpuFile));
      } else {
        floors.push(await timeNode(floor, cpuFile));
        subjects.push(await timeNode(subject, cpuFile));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const med = (ts: readonly Timing[]): Timing => ({
    cpuMs: median(ts.map((t) => t.cpuMs)),
    wallMs: median(ts.map((t) => t.wallMs)),
  });
  return {
    runs,
    subject: med(subjects),
    floor: med(floors),
    cpuRatio: median(subjects.map((s, i) => s.cpuMs / floors[i]!.cpuMs)),
    wallRatio: median(subjects.map((s, i) => s.wallMs / floors[i]!.wallMs)),
  };
}

/** One line: "<name> CPU a ms vs b ms (x1.23), wall c ms vs d ms (x1.10)". */
export function describePair(name: string, floorName: string, pair: Pair): string {
  const { subject: s, floor: f } = pair;
  return (
    `${name}: CPU ${s.cpuMs.toFixed(0)} ms vs ${floorName} ${f.cpuMs.toFixed(0)} ms (x${pair.cpuRatio.toFixed(2)}), ` +
    `wall ${s.wallMs.toFixed(0)} ms vs ${f.wallMs.toFixed(0)} ms (x${pair.wallRatio.toFixed(2)}); median of ${pair.runs} paired runs`
  );
}
