// How many --procs worker processes this machine can run: each is a node process with its own
// heap and its clients' connections, so both the CPUs and the free memory bound it. Forking past
// either makes every worker late (the race judges itself inconclusive) or fails a fork midway.

import { availableParallelism, freemem } from 'node:os';
import type { CountBounds } from '../core/count.js';

/** Workers per CPU: they mostly wait on Redis, so a few share a core before their timers run late. */
export const WORKERS_PER_CPU = 4;
/** Memory one worker takes at the start of a race (resident set of node with a few clients). */
export const WORKER_BYTES = 64 * 1024 * 1024;

/** The range of --procs on this machine now, with the reason for its top. */
export function procsBounds(cpus = availableParallelism(), free = freemem()): CountBounds {
  const byCpu = cpus * WORKERS_PER_CPU;
  const byMemory = Math.floor(free / WORKER_BYTES);
  const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);
  return {
    min: 1,
    max: Math.max(1, Math.min(byCpu, byMemory)),
    why:
      byCpu <= byMemory
        ? `${cpus} CPU${cpus === 1 ? '' : 's'} here, ${WORKERS_PER_CPU} workers each`
        : `${mb(free)} MB of free memory here, ${mb(WORKER_BYTES)} MB a worker`,
  };
}
