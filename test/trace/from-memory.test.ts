import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { writeMonitorLog } from '../helpers/monitor-log.js';

// `trace --from` streams: its memory is bounded by the locks and owners alive at once, not by the
// file. A log four times as long (the same 50 clients taking and releasing their locks) must not
// take the built CLI's peak RSS up by more than a bound; reading the file whole, as it once did
// (its text, its parsed lines, every event, the chart's history), grew by hundreds of megabytes.
// Its time is linear in the file: the 4x log may not cost more than 4x the CPU (user + system,
// not wall: the machine is shared), with room for a busy machine; a step that grew with what came
// before (a checker walking every past loss) would cost 4x as much again. bench/trace-from.ts
// measures both at 2 GB.

const CLI = join(import.meta.dirname, '../../bin/redlock-cli.js');
const dir = mkdtempSync(join(tmpdir(), 'redlock-trace-memory-'));
/** Writes the process's peak RSS (KiB) and CPU time (µs) to $PEAK_RSS_FILE as it exits. */
const PRELOAD = join(dir, 'peak-rss.cjs');
writeFileSync(
  PRELOAD,
  "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.PEAK_RSS_FILE, JSON.stringify([u.maxRSS, u.userCPUTime + u.systemCPUTime])); });\n",
);

/** Runs `trace --from file --json` in a child (output discarded); resolves with its exit code, peak RSS in MiB and CPU seconds. */
function peakRss(file: string): Promise<{ code: number | null; mib: number; cpuS: number }> {
  const rssFile = `${file}.rss`;
  const child = spawn(process.execPath, ['--require', PRELOAD, CLI, 'trace', '--from', file, '--json'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: dir, PEAK_RSS_FILE: rssFile },
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const [rssKiB, cpuUs] = JSON.parse(readFileSync(rssFile, 'utf8')) as [number, number];
      resolve({ code, mib: rssKiB / 1024, cpuS: cpuUs / 1e6 });
    });
  });
}

const SMALL_BYTES = 12 * 2 ** 20;
/**
 * Allowed growth from the 1x log to the 4x one: twice the 36 MiB more of file. Heap slack and GC
 * timing take it up by 20-41 MiB beside CPU hogs; holding the file's lines or their events would
 * cost several times the file (the old reader took 1.08 GB for a 60 MB log).
 */
const GROWTH_BOUND_MIB = 72;
/** CPU of the 4x log against the 1x one: 4 when linear (less: start-up is paid once), 16 when quadratic. */
const CPU_RATIO_BOUND = 4 * 1.5;

describe('trace --from memory', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a log four times as long takes the peak RSS up by less than a bound, and at most about 4 times the CPU', async () => {
    const small = join(dir, 'small.log');
    const large = join(dir, 'large.log');
    const ops = await writeMonitorLog(small, 'released', SMALL_BYTES);
    expect(await writeMonitorLog(large, 'released', 4 * SMALL_BYTES)).toBeGreaterThan(3.9 * ops);
    const one = await peakRss(small);
    const four = await peakRss(large);
    expect([one.code, four.code]).toEqual([0, 0]);
    expect(four.mib - one.mib).toBeLessThan(GROWTH_BOUND_MIB);
    expect(four.cpuS / one.cpuS).toBeLessThan(CPU_RATIO_BOUND);
  }, 300_000);

  it('--json into a pipe that is full waits for it to drain before it reads on', async () => {
    const file = join(dir, 'drain.log');
    await writeMonitorLog(file, 'released', 6 * 2 ** 20);
    // A stdout that queues every write (as a pipe whose reader is behind) and drains a tick later.
    let writes = 0;
    let sinceDrain = 0;
    let mostSinceDrain = 0;
    let drainListener: (() => void) | undefined;
    const stdout = {
      isTTY: false,
      write: () => {
        writes++;
        mostSinceDrain = Math.max(mostSinceDrain, ++sinceDrain);
        setImmediate(() => {
          const listener = drainListener;
          drainListener = undefined;
          if (listener) (sinceDrain = 0), listener();
        });
        return false;
      },
      once: (_event: 'drain', listener: () => void) => void (drainListener = listener),
    };
    const code = await run(['trace', '--from', file, '--json'], { stdout, stderr: { write: () => true }, env: { HOME: dir, XDG_STATE_HOME: dir } });
    expect(code).toBe(0);
    // A 1 MiB chunk of the file is about 1 MiB of output, some 20 writes; then the reader waits.
    // Without waiting, every write of the 6 MiB log came before the first drain.
    expect(writes).toBeGreaterThan(90);
    expect(mostSinceDrain).toBeLessThan(40);
  }, 120_000);
});
