// The harness watching itself: CPU time and event-loop delay over the race, so a summary can
// say whether the clients were held back by the lock or by the process driving them.

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
  return {
    read: () => {
      const used = process.cpuUsage(cpu);
      return {
        cpuUserUs: used.user,
        cpuSystemUs: used.system,
        wallMs: performance.now() - started,
        // The histogram counts in ns and includes the sampling resolution itself.
        loopDelayP99Ms: Math.max(0, histogram.percentile(99) / 1e6 - 10),
        loopDelayMaxMs: Math.max(0, histogram.max / 1e6 - 10),
        loopDelayMeanMs: Number.isFinite(histogram.mean) ? Math.max(0, histogram.mean / 1e6 - 10) : 0,
      };
    },
    stop: () => histogram.disable(),
  };
}
