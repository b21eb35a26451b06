// How long a client stays in the critical section: the same mean for every distribution, so
// switching --hold-dist changes the spread, not the load.

import type { HoldDist } from './plan.js';

/** One hold time in ms: fixed, uniform on [0, 2 x mean], or exponential with that mean. */
export function sampleHold(dist: HoldDist, meanMs: number, random: () => number = Math.random): number {
  switch (dist) {
    case 'fixed':
      return meanMs;
    case 'uniform':
      return random() * 2 * meanMs;
    case 'exp':
      // 1 - random() is in (0, 1], so the log is finite.
      return -Math.log(1 - random()) * meanMs;
  }
}
