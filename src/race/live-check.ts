// Violations as they happen, for the live view: the same checker as the final verdict, run on
// the recent stretch of each key's history (a few lease + hold periods back), so each pass costs
// the same however long the race has run. A cut can only hide an overlap that started before
// the window, never invent one; the final verdict reads the whole history.

import { checkHistory } from '../core/scenario/checker.js';
import type { HistoryEvent } from '../core/scenario/history.js';
import type { Violation, ViolationKind } from '../core/scenario/verdict.js';

/** What a window can judge: a lost update needs the end of the run, liveness is not a race verdict. */
const LIVE_KINDS: readonly ViolationKind[] = ['mutual-exclusion', 'stale-holder', 'stale-write'];

export interface LiveChecker {
  /** Checks the key's recent history (the last two margins up to now). */
  check(key: string, clients: readonly string[], events: readonly HistoryEvent[], nowMs: number): void;
  /** Every violation found so far, on every key, in the order found. */
  found(): readonly (Violation & { readonly key: string })[];
}

export function liveChecker(marginMs: number): LiveChecker {
  const found = new Map<string, Violation & { key: string }>();
  const starts = new Map<string, number>();
  return {
    check(key, clients, events, nowMs) {
      const from = nowMs - marginMs;
      // Events arrive almost in time order (worker batches interleave a little): walk on from the
      // last window's start instead of searching the whole list.
      let i = starts.get(key) ?? 0;
      while (i < events.length && events[i]!.t < from - marginMs) i++;
      starts.set(key, i);
      const window = events.slice(i).sort((a, b) => a.t - b.t);
      const verdict = checkHistory({ clients: [...clients], nodes: [], events: window }, { starvationMs: Number.POSITIVE_INFINITY });
      for (const v of verdict.violations) {
        if (!LIVE_KINDS.includes(v.kind)) continue;
        const id = `${key}|${v.kind}|${v.clients.join(',')}|${Math.round(v.from)}`;
        if (!found.has(id)) found.set(id, { ...v, key });
      }
    },
    found: () => [...found.values()],
  };
}
