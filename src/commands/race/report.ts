// A race as an incident report: a section of lanes per key, the summary's figures as its table.

import { describePlan } from '../../core/race/plan.js';
import { historySection } from '../../core/report/from-history.js';
import type { Report } from '../../core/report/model.js';
import type { RaceResult } from '../../race/run.js';
import { raceFigures, raceTitle } from './output.js';

export function raceReport(r: RaceResult): Report {
  return {
    title: raceTitle(r),
    subtitle: describePlan(r.plan).join(' · '),
    sections: r.keys.map((k) => historySection(`key ${k.key}`, k.history, k.verdict.violations, `${k.clients.length} clients, ${k.acquisitions} acquisitions`)),
    tables: [{ caption: 'Figures', head: ['figure', 'value'], rows: raceFigures(r, () => 40) }],
    notes: [],
  };
}
