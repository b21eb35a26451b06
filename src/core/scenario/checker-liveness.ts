// deadlock and starvation: an acquisition that waited longer than the bound. What happened during
// the part of the wait beyond the bound decides which: another live client took or held the lock
// (starvation), or nobody alive held it and the waiter still could not get it (deadlock: a crashed
// holder's lock without a TTL, a dead fair-queue head, a read lock waiting for its own upgrade).

import { at, names, span, violation } from './checker-format.js';
import { overlaps, type OpSpan, type Intervals } from './checker-intervals.js';
import type { Violation } from './verdict.js';

/** One violation per acquisition that waited longer than starvationMs; single attempts that fail fast never do. */
export function checkLiveness(intervals: Intervals, starvationMs: number): Violation[] {
  const found: Violation[] = [];
  for (const wait of intervals.spans) {
    if (wait.op !== 'acquire' || wait.to - wait.from <= starvationMs) continue;
    const beyond = { from: wait.from + starvationMs, to: wait.to };
    const waiter = wait.client;
    // Holds end at a crash, so a hold overlapping this window was a live client's.
    const holders = [...new Set(intervals.holds.filter((h) => h.client !== waiter && overlaps(h, beyond)).map((h) => h.client))];
    const waited = `${waiter} waited ${span(wait.to - wait.from)} for the lock from ${at(wait.from)}${outcome(wait)} (bound ${span(starvationMs)})`;
    if (holders.length > 0) {
      found.push(violation('starvation', [waiter, ...holders], wait.from, wait.to, `${waited} while ${names(holders)} held it`));
      continue;
    }
    const crashed = crashedHolders(intervals, waiter, wait.to);
    const why = crashed.length > 0 ? ` (${crashed.map(([c, t]) => `${c} crashed at ${at(t)}`).join(', ')})` : '';
    found.push(violation('deadlock', [waiter, ...crashed.map(([c]) => c)], wait.from, wait.to, `${waited} while no live client held it${why}`));
  }
  return found;
}

function outcome(wait: OpSpan): string {
  if (wait.endedBy === 'crash') return ` until it crashed at ${at(wait.to)}`;
  if (wait.endedBy === 'end') return ' and was still waiting at the end';
  return wait.done?.phase === 'ok' ? ` and got it at ${at(wait.to)}` : ` and gave up at ${at(wait.to)}`;
}

// The likely reason nobody could get it: a client that died holding the lock or halfway through taking it.
function crashedHolders(intervals: Intervals, waiter: string, before: number): (readonly [string, number])[] {
  return [...intervals.crashes]
    .filter(([c, t]) => c !== waiter && t <= before)
    .filter(([c, t]) =>
      intervals.holds.some((h) => h.client === c && h.endedBy === 'crash') ||
      intervals.spans.some((s) => s.client === c && s.op === 'acquire' && s.endedBy === 'crash' && s.to === t),
    )
    .sort((a, b) => a[1] - b[1]);
}
