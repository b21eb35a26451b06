// The report adapter for a trace (live or `--from`): the lanes come from the trace's scenario-style
// history (core/trace/history.ts, as the terminal chart draws them) and every decoded event keeps
// its own facts for the hover card: the server's time, the client, the owner, the lease, the count.

import { escapeControls, printable } from '../decode/escape.js';
import { formatDuration } from '../duration.js';
import { deriveLanes } from '../scenario/timeline.js';
import type { EventTone } from '../scenario/timeline-events.js';
import { blindLine, type BlindPeriod } from '../trace/blind.js';
import type { Finding } from '../trace/checker.js';
import { clientLabel, isNodeEvent, type TraceEvent } from '../trace/events.js';
import { eventText, findingTally } from '../trace/format.js';
import { laneOf, traceHistory } from '../trace/history.js';
import type { LockSummary } from '../trace/summary.js';
import { summaryRows } from '../trace/summary-text.js';
import type { Report, ReportEvent } from './model.js';

export interface TraceReportInput {
  /** `trace --from incident.ndjson`, `trace redis://10.0.0.5:6379`. */
  readonly subtitle: string;
  /** The events kept for the page (the most recent, when the trace saw more). */
  readonly events: readonly TraceEvent[];
  /** Every event the trace saw. */
  readonly seen: number;
  readonly findings: readonly Finding[];
  readonly locks: readonly LockSummary[];
  readonly blind: readonly BlindPeriod[];
}

const FAILED = new Set<TraceEvent['kind']>(['refused', 'renew-refused', 'release-refused', 'expired', 'deleted', 'force-unlocked', 'lost-in-failover']);
const NODE = new Set<TraceEvent['kind']>(['failover', 'blind', 'unblind', 'clock-step', 'raw']);

function tone(e: TraceEvent): EventTone {
  if (FAILED.has(e.kind)) return 'failed';
  return NODE.has(e.kind) ? 'fault' : 'op';
}

/** The whole page of a trace: one section of lanes, the per-lock table, the findings' count and blind periods. */
export function traceReport(input: TraceReportInput): Report {
  const events = input.events;
  const origin = events[0]?.t ?? input.findings[0]?.from ?? 0;
  const findings = input.findings.filter((f) => f.to >= origin);
  const { history, violations, lanes: laneOfOwner, times } = traceHistory(events, findings, origin);
  // A finding's band also covers its server lanes: the nodes it names (a Redlock overlap), else its lock's.
  const withLock = violations.map((v, i) => {
    const f = findings[i]!;
    return { ...v, clients: [...v.clients, ...(f.nodes ?? [f.lock]).map(printable)] };
  });
  const laneFor = (e: TraceEvent): string => {
    if (e.owner !== undefined) return laneOfOwner.get(e.owner) ?? laneOf(e);
    if (e.node !== undefined) return printable(e.node);
    return isNodeEvent(e) ? 'server' : printable(e.lock);
  };
  // Drawn where the lanes put them (a stepped node's on the common scale); the card keeps the server's own time.
  const reportEvents: ReportEvent[] = events.map((e) => ({ t: times.comparable(e.node, e.t) - origin, lane: laneFor(e), text: eventText(e), tone: tone(e), detail: traceDetail(e) }));
  const stepped = events.some((e) => e.kind === 'clock-step' && e.node !== undefined);
  const timesNote = stepped ? "times are the server's (UTC), a node's less its clock steps before them (the card keeps its own)" : "times are the server's (UTC)";
  const shown = events.length < input.seen ? `the last ${events.length} of ${input.seen} events` : `${input.seen} events`;
  const { head, rows } = summaryRows(input.locks);
  return {
    title: 'Lock trace',
    subtitle: input.subtitle,
    sections: [{ title: 'Lanes', note: `${shown}; ${timesNote}`, originMs: origin, lanes: deriveLanes(history, { violations: withLock }), events: reportEvents }],
    tables: [{ caption: 'Per lock', head, rows }],
    notes: [
      input.findings.length === 0 ? 'findings: none: nothing unsafe seen' : `findings: ${findingTally(input.findings)}`,
      ...input.blind.map((p) => escapeControls(blindLine(p))),
    ],
  };
}

function traceDetail(e: TraceEvent): [string, string][] {
  const d: [string, string][] = [
    ['server time', new Date(e.t).toISOString().replace('T', ' ').slice(0, 23)],
    ['lock', printable(e.lock)],
    ['event', e.kind],
    ['client', printable(clientLabel(e.client))],
  ];
  if (e.owner !== undefined) d.push(['owner', printable(e.owner)]);
  if (e.leaseMs !== undefined) d.push(['TTL (lease)', formatDuration(e.leaseMs)]);
  if (e.count !== undefined) d.push(['hold count', String(e.count)]);
  if (e.holders && e.holders.length > 0) d.push(['held by', e.holders.map(printable).join(', ')]);
  if (e.library !== undefined) d.push(['library', e.library]);
  if (e.node !== undefined) d.push(['node', printable(e.node)]);
  if (e.command) d.push(['command', e.command.map(printable).join(' ').slice(0, 200)]);
  if (e.detail !== undefined) d.push(['detail', printable(e.detail)]);
  return d;
}
