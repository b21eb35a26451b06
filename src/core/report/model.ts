// The one model the HTML incident report draws, whatever recorded the history: a trace (live or
// from a file), a scenario run (a section per variant) or a race (a section per key). Each source
// has a small adapter (from-history.ts, from-trace.ts) that fills it from the lanes the terminal
// swimlanes already derive (core/scenario/timeline.ts), so the page and the terminal agree.

import type { EventTone } from '../scenario/timeline-events.js';
import type { Lanes } from '../scenario/timeline.js';

/** One event as the page shows it: a glyph on its lane, a row in the list, a hover card. */
export interface ReportEvent {
  /** ms since the section's t = 0. */
  readonly t: number;
  /** The lane it is drawn on: a client's, a node's or lock's, or one of its own (`scenario`, `end`). */
  readonly lane: string;
  readonly text: string;
  readonly tone: EventTone;
  /** The hover card, label then value: server time, client, owner, TTL, hold count, ... */
  readonly detail: readonly (readonly [string, string])[];
}

export interface ReportSection {
  readonly title: string;
  /** A line under the title: a variant's description, the part of a long trace shown. */
  readonly note?: string;
  /** Server epoch ms at t = 0 (a trace); absent: times are the run's own clock from its start. */
  readonly originMs?: number;
  /** Client and node lanes, and the findings (violations) with their windows and clients. */
  readonly lanes: Lanes;
  readonly events: readonly ReportEvent[];
}

/** A summary table: a row per lock (trace), per variant (scenario), per figure (race). */
export interface ReportTable {
  readonly caption: string;
  readonly head: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export interface Report {
  readonly title: string;
  /** What produced it, in one line: `trace --from incident.ndjson`. */
  readonly subtitle: string;
  readonly sections: readonly ReportSection[];
  readonly tables: readonly ReportTable[];
  /** Lines under the tables: the verdict, blind periods, what was left out. */
  readonly notes: readonly string[];
}

/** `1.23 s` on the run's clock, or `12:00:01.234` UTC on the server's. */
export function reportTime(section: Pick<ReportSection, 'originMs'>, t: number): string {
  if (section.originMs === undefined) return `${(t / 1000).toFixed(3)} s`;
  return new Date(section.originMs + t).toISOString().slice(11, 23);
}

/**
 * Events a trace's page holds at most (the most recent): a page of 20,000 trace events is about 5 MB
 * (docs/guide/incident-report.md), and a day-long trace must not grow memory or the file without bound.
 */
export const REPORT_EVENTS = 20_000;
