// The text chart `trace --from` draws after the events: the lanes of the whole file while it is
// short, else of the session's recent window. Charting every event of a long file would hold the
// whole history and draw lanes no one can read; the summary under the chart counts every event.

import { chartLines } from '../scenario/timeline-text.js';
import { deriveLanes } from '../scenario/timeline.js';
import { traceTime } from './format.js';
import { traceHistory } from './history.js';
import type { TraceSession } from './session.js';

export function replayChartLines(session: TraceSession, width: number): string[] {
  const events = session.recent();
  const origin = events[0]?.t ?? 0;
  const findings = session.findings.filter((f) => f.to >= origin);
  const { history, violations } = traceHistory(events, findings, origin);
  if (history.clients.length === 0) return [];
  const lines = chartLines(deriveLanes(history, { violations }), width);
  if (events.length >= session.events) return lines;
  return [`chart: the last ${events.length} of ${session.events} events, from ${traceTime(origin)}; the summary counts them all`, ...lines];
}
