// CPU hogs for the load rehearsals: N busy-looping node processes per core, each stopped by its
// own pid at the end (also on Ctrl-C / SIGTERM, and each dies by itself after `maxMs` should this
// process be killed outright). Used by suite-under-load.mjs and scenario-repeat.mjs --hogs.
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';

/** The 1, 5 and 15 minute load averages, as `4.21 3.80 2.95`. */
export const loadText = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/**
 * Starts `perCore` hogs per core; returns their pids and a stop() that kills exactly those.
 * `maxMs` bounds each hog's life even if nobody stops it.
 */
export function startHogs(perCore, maxMs) {
  const count = Math.max(0, Math.round(perCore * availableParallelism()));
  const hogs = [];
  for (let i = 0; i < count; i++) {
    // A tight loop that checks the clock now and then, so it ends on its own after maxMs.
    const body = `const end = Date.now() + ${Math.round(maxMs)}; let x = 0; while (Date.now() < end) { for (let i = 0; i < 1e6; i++) x += i; }`;
    const child = spawn(process.execPath, ['-e', body], { stdio: 'ignore' });
    hogs.push(child);
  }
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const child of hogs) {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  };
  const onSignal = (signal) => {
    stop();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', stop);
  return { pids: hogs.map((h) => h.pid), count, stop };
}
