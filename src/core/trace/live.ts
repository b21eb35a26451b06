// What the live trace screen shows at one moment, computed from the session: lanes for the last
// few seconds (the busiest recent locks and clients only, so a busy server stays readable), the
// newest findings and events as lines, and the counters of the header.

import { wrapText } from '../text-layout.js';
import { deriveLanes, type Lanes } from '../scenario/timeline.js';
import type { Finding } from './checker.js';
import { eventLine, findingLine } from './format.js';
import { isNodeEvent, type TraceEvent } from './events.js';
import { traceHistory } from './history.js';
import type { TraceSession } from './session.js';

export interface TraceLiveState {
  readonly lanes: Lanes;
  /** The time the lanes span (ms). */
  readonly spanMs: number;
  readonly events: number;
  readonly unsafe: number;
  readonly warnings: number;
  readonly findingLines: readonly string[];
  readonly eventLines: readonly string[];
}

export interface LiveLimits {
  readonly windowMs: number;
  readonly maxClients: number;
  readonly maxLocks: number;
  readonly findings: number;
  readonly lines: number;
}

export const LIVE_LIMITS: LiveLimits = { windowMs: 10_000, maxClients: 6, maxLocks: 3, findings: 3, lines: 8 };

/**
 * The locks the lanes show: those with a finding in the window first (newest finding first, all
 * but one row), then the most recently active. A busy server otherwise scrolled the one lock that
 * mattered out of the chart while quieter locks stayed.
 */
function chartedLocks(findings: readonly Finding[], newestFirst: readonly TraceEvent[], origin: number, maxLocks: number): string[] {
  const active = new Set(newestFirst.map((e) => e.lock));
  const pinned: string[] = [];
  for (let i = findings.length - 1; i >= 0 && pinned.length < maxLocks - 1; i--) {
    const f = findings[i]!;
    if (f.to >= origin && active.has(f.lock) && !pinned.includes(f.lock)) pinned.push(f.lock);
  }
  return [...new Set([...pinned, ...active])].slice(0, maxLocks);
}

/**
 * The screen's state now, its lines at most `width` wide (a finding wraps onto two lines, then is
 * cut); `now` is the server time the lanes run to (default: the newest event).
 */
export function traceLiveState(session: TraceSession, width: number, limits: LiveLimits = LIVE_LIMITS, now?: number): TraceLiveState {
  const recent = session.recent().filter((e) => !isNodeEvent(e));
  const end = now ?? recent.at(-1)?.t ?? 0;
  const origin = end - limits.windowMs;
  const inWindow = recent.filter((e) => e.t >= origin);
  const newestFirst = [...inWindow].reverse();
  const locks = chartedLocks(session.findings, newestFirst, origin, limits.maxLocks);
  const shown = inWindow.filter((e) => locks.includes(e.lock));
  const who = (e: TraceEvent) => e.client?.addr ?? e.owner ?? '';
  // The clients of pinned locks first: a finding's lock without its clients would show no one.
  const byPin = [...shown].reverse().sort((a, b) => locks.indexOf(a.lock) - locks.indexOf(b.lock));
  const clients = [...new Set(byPin.filter((e) => e.owner !== undefined).map(who))].slice(0, limits.maxClients);
  const events = shown.filter((e) => e.owner === undefined || clients.includes(who(e)));
  const findings = session.findings.filter((f) => f.to >= origin && locks.includes(f.lock));
  const { history, violations } = traceHistory(events, findings, origin);
  const all: readonly Finding[] = session.findings;
  return {
    lanes: deriveLanes(history, { violations, now: end - origin }),
    spanMs: limits.windowMs,
    events: session.events,
    unsafe: all.filter((f) => f.unsafe).length,
    warnings: all.filter((f) => !f.unsafe).length,
    findingLines: all.slice(-limits.findings).flatMap((f) => {
      const lines = wrapText(findingLine(f), width, { indent: '    ' });
      return lines.length > 2 ? [lines[0]!, `${lines[1]!.slice(0, width - 1)}…`] : lines;
    }),
    eventLines: recent.slice(-limits.lines).map(eventLine),
  };
}
