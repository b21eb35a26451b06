// Wording shared by the checks: every message is one sentence a user reads without the history.

import { formatDuration } from '../duration.js';
import type { Violation, ViolationKind } from './verdict.js';

/** A moment of the run, as the timeline labels it: 410 -> "0.41 s", 12_500 -> "12.5 s". */
export function at(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** A span of time: 310 -> "310 ms", 2400 -> "2.4 s". */
export function span(ms: number): string {
  return formatDuration(ms);
}

/** "A", "A and B", "A, B and C". */
export function names(list: readonly string[]): string {
  if (list.length <= 1) return list[0] ?? '';
  return `${list.slice(0, -1).join(', ')} and ${list[list.length - 1] ?? ''}`;
}

/** Builds a violation; the window never runs backwards. */
export function violation(kind: ViolationKind, clients: readonly string[], from: number, to: number, message: string): Violation {
  return { kind, clients, from, to: Math.max(from, to), message };
}
