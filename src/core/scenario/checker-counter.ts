// lost-update: the read-modify-write counter ends lower than the number of increments the
// resource accepted. The culprits are increments of different clients whose read..write gaps
// overlapped: one read the counter before the other's write landed, and wrote over it.

import { at, names, violation } from './checker-format.js';
import { completed, overlaps, type OpSpan, type Intervals } from './checker-intervals.js';
import type { EndEvent, History } from './history.js';
import type { Violation } from './verdict.js';

/** At most one violation: the counter's shortfall, with the clients whose increments overlapped. */
export function checkLostUpdate(history: History, intervals: Intervals): Violation[] {
  const end = history.events.filter((e): e is EndEvent => e.kind === 'end').at(-1);
  if (!end) return [];
  const incrs = completed(intervals, 'incr').filter((s) => s.done?.accepted !== false);
  if (end.counter >= incrs.length) return [];

  const culprits = new Set<OpSpan>();
  incrs.forEach((a, i) => {
    for (const b of incrs.slice(i + 1)) {
      if (a.client !== b.client && overlaps(a, b)) culprits.add(a).add(b);
    }
  });
  const lost = incrs.length - end.counter;
  const head = `the counter ended at ${end.counter} after ${incrs.length} accepted increments (${lost} lost)`;
  if (culprits.size === 0) {
    // Lost some other way (a failover rolled the counter back): name everyone who incremented.
    const clients = intervals.clients.filter((c) => incrs.some((s) => s.client === c));
    const from = Math.min(...incrs.map((s) => s.from));
    return [violation('lost-update', clients, from, end.t, `${head}, though no two increments overlapped`)];
  }
  const spans = [...culprits].sort((a, b) => a.from - b.from);
  const clients = [...new Set(spans.map((s) => s.client))];
  const from = Math.min(...spans.map((s) => s.from));
  const to = Math.max(...spans.map((s) => s.to));
  const whose = clients.map((c) => `${c}'s`);
  return [violation('lost-update', clients, from, to, `${head}: ${names(whose)} increments overlapped between ${at(from)} and ${at(to)}`)];
}
