// mutual-exclusion: two clients inside the critical section at once. Sections entered under shared
// (read) locks may overlap each other; any overlap involving an exclusive one is a violation.

import { at, names, span, violation } from './checker-format.js';
import { overlaps, type Interval, type Intervals } from './checker-intervals.js';
import type { Violation } from './verdict.js';

/** One violation per pair of overlapping sections of different clients, over their overlap. */
export function checkMutualExclusion(intervals: Intervals): Violation[] {
  const found: Violation[] = [];
  const sections = intervals.sections; // sorted by entry, so `a` entered first (ties: client order)
  sections.forEach((a, i) => {
    for (const b of sections.slice(i + 1)) {
      if (a.client === b.client || (a.shared && b.shared) || !overlaps(a, b)) continue;
      const from = Math.max(a.from, b.from);
      const to = Math.min(a.to, b.to);
      const message =
        `${a.client} and ${b.client} were both in the critical section for ${span(to - from)}, ` +
        `from ${at(from)} to ${at(to)}${untilEnd(intervals, to)}${pausedDuring(intervals, [a, b], from, to)}`;
      found.push(violation('mutual-exclusion', [a.client, b.client], from, to, message));
    }
  });
  return found;
}

function untilEnd(intervals: Intervals, to: number): string {
  return to === intervals.end ? ' (the end of the run)' : '';
}

// The classic cause (a GC pause outliving the lease) is worth naming: "while A was paused".
function pausedDuring(intervals: Intervals, pair: readonly Interval[], from: number, to: number): string {
  const window = { from, to };
  const paused = pair
    .map((s) => s.client)
    .filter((c) => intervals.spans.some((p) => p.op === 'pause' && p.client === c && overlaps(p, window)));
  return paused.length > 0 ? `, while ${names(paused)} ${paused.length > 1 ? 'were' : 'was'} paused` : '';
}
