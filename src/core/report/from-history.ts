// The report adapter for a recorded history: a scenario variant's or a race key's. Times stay on
// the runner's clock (ms since the run started): these histories hold no server time. What a
// hover card says of each event comes from the event's own fields.

import type { HistoryEvent, History } from '../scenario/history.js';
import { eventLine, seconds, shownEvents } from '../scenario/timeline-events.js';
import { deriveLanes, type ViolationLike } from '../scenario/timeline.js';
import { allMatched, type ScenarioRun } from '../scenario/run.js';
import { violationKinds } from '../scenario/verdict.js';
import { reportTime, type Report, type ReportEvent, type ReportSection } from './model.js';

type Detail = [string, string][];

/** One section from a history and the violations the checker found in it. */
export function historySection(title: string, history: History, violations: readonly ViolationLike[], note?: string): ReportSection {
  const lanes = deriveLanes(history, { violations });
  const events: ReportEvent[] = shownEvents(history).map((e) => {
    const line = eventLine(e);
    return { t: e.t, lane: line.lane, text: line.text, tone: line.tone, detail: [['run time', reportTime({}, e.t)], ...eventDetail(e)] };
  });
  return { title, ...(note !== undefined ? { note } : {}), lanes, events };
}

function eventDetail(e: HistoryEvent): Detail {
  switch (e.kind) {
    case 'op': {
      const d: Detail = [
        ['client', e.client],
        ['operation', `${e.op} ${e.phase}`],
      ];
      if (e.leaseMs !== undefined) d.push(['TTL (lease)', seconds(e.leaseMs)]);
      if (e.token !== undefined) d.push(['fencing token', String(e.token)]);
      if (e.value !== undefined) d.push(['value', String(e.value)]);
      if (e.read !== undefined) d.push(['read', String(e.read)]);
      if (e.accepted !== undefined) d.push(['resource', e.accepted ? 'accepted' : 'rejected']);
      if (e.held !== undefined) d.push(['server says held', e.held ? 'yes' : 'no']);
      if (e.shared) d.push(['mode', 'shared']);
      if (e.detail !== undefined) d.push(['detail', e.detail]);
      return d;
    }
    case 'fault':
      return [['node', e.node], ['fault', `${e.verb} ${e.phase}`], ...(e.detail !== undefined ? ([['detail', e.detail]] as Detail) : [])];
    case 'server':
      return [
        ['node', e.node],
        ['holders', e.holders.length === 0 ? 'none' : e.holders.join(', ')],
        ['hold count', String(e.holders.length)],
        ['TTL', e.ttlMs === -1 ? 'no TTL' : e.ttlMs < 0 ? 'gone' : seconds(e.ttlMs)],
      ];
    case 'lock-lost':
      return [['client', e.client], ['lost', e.reason]];
    case 'renewed':
      return [['client', e.client], ['renewals', String(e.renewals)]];
    case 'note':
      return [['lane', e.lane]];
    case 'end':
      return [['counter', String(e.counter)]];
  }
}

/** A scenario run's page: a section per variant, a table of the variants' verdicts. */
export function scenarioReport(run: ScenarioRun): Report {
  return {
    title: `Scenario ${run.name}`,
    subtitle: run.title,
    sections: run.variants.map((v) => historySection(`variant ${v.variant}`, v.history, v.verdict.violations, v.description)),
    tables: [
      {
        caption: 'Variants',
        head: ['variant', 'expected', 'found', 'outcome', 'attempts', 'took'],
        rows: run.variants.map((v) => [
          v.variant,
          v.expected.length === 0 ? 'safe' : v.expected.join(', '),
          violationKinds(v.verdict).join(', ') || 'safe',
          v.outcome + (v.timing.inconclusive !== undefined ? `: ${v.timing.inconclusive}` : ''),
          String(v.attempts),
          seconds(v.durationMs),
        ]),
      },
    ],
    notes: [allMatched(run) ? 'every variant reached its expected verdict' : 'not every variant reached its expected verdict'],
  };
}
