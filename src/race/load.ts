// The harness watching itself: CPU time and event-loop delay over the race, so a summary can
// say whether the clients were held back by the lock or by the process driving them.

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoadReading {
  readonly cpuUserUs: number;
  readonly cpuSystemUs: number;
  readonly wallMs: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
  readonly loopDelayMeanMs: number;
}

/** Starts measuring now; `read()` gives the figures since then. */
export function watchLoad(): { read(): LoadReading; stop(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  // Our own timer beside the histogram: how late a 10 ms timeout ever fired, the figure the
  // race's judgement holds against the lease (a single long stall must not get lost in sampling).
  let lateMax = 0;
  let due = started + 10;
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    const now = performance.now();
    lateMax = Math.max(lateMax, now - due);
    due = now + 10;
    timer = setTimeout(tick, 10);
    timer.unref();
  };
  timer = setTimeout(tick, 10);
  timer.unref();
  return {
    read: () => {
      const used = process.cpuUsage(cpu);
      return {
        cpuUserUs: used.user,
        cpuSystemUs: used.system,
        wallMs: performance.now() - started,
        // The histogram counts in ns and includes the sampling resolution itself.
        loopDelayP99Ms: Math.max(0, histogram.percentile(99) / 1e6 - 10),
        loopDelayMaxMs: Math.max(0, histogram.max / 1e6 - 10, lateMax),
        loopDelayMeanMs: Number.isFinite(histogram.mean) ? Math.max(0, histogram.mean / 1e6 - 10) : 0,
      };
    },
    stop: () => {
      clearTimeout(timer);
      histogram.disable();
    },
  };
}

/** Busy and total CPU time of the whole machine so far (/proc/stat jiffies); undefined off Linux. */
function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // idle + iowait are the machine waiting; everything else (steal included) is it being busy.
    return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/** Starts measuring the machine; `read()` gives how many of its cores were busy since, on average. */
export function watchMachine(): { read(): { readonly cores: number; readonly busyCores?: number | undefined } } {
  const cores = availableParallelism();
  const before = machineTicks();
  return {
    read: () => {
      const after = machineTicks();
      if (!before || !after || after.total <= before.total) return { cores };
      return { cores, busyCores: ((after.busy - before.busy) / (after.total - before.total)) * cores };
    },
  };
}
