// Periods the trace saw nothing of a node: notifications turned off under a keyspace trace, a
// primary it lost and could not follow. A trace that was blind cannot say nothing unsafe happened
// then, so the summary names these periods beside its findings.

import type { TraceEvent } from './events.js';
import { traceTime } from './format.js';

export interface BlindPeriod {
  /** Server epoch ms from which events may have been missed. */
  readonly from: number;
  /** When it could see again; undefined: blind until the trace ended. */
  readonly to: number | undefined;
  /** The node (`host:port`) when the trace follows several. */
  readonly node: string | undefined;
  readonly detail: string;
}

/** Periods kept: a node flapping all day must not grow the summary without bound. */
const MAX_PERIODS = 100;

/** Folds `blind` / `unblind` events into periods, per node. */
export class BlindPeriods {
  private readonly open = new Map<string, BlindPeriod>();
  private readonly closed: BlindPeriod[] = [];

  push(e: TraceEvent): void {
    const node = e.node ?? '';
    if (e.kind === 'blind' && !this.open.has(node))
      this.open.set(node, { from: e.t, to: undefined, node: e.node, detail: e.detail ?? 'nothing seen' });
    if (e.kind !== 'unblind') return;
    const period = this.open.get(node);
    this.open.delete(node);
    if (period && this.closed.length < MAX_PERIODS) this.closed.push({ ...period, to: e.t });
  }

  /** Every period, oldest first; those still open have no end. */
  all(): BlindPeriod[] {
    return [...this.closed, ...this.open.values()].sort((a, b) => a.from - b.from);
  }
}

/** `blind 12:00:01.000-12:00:05.000 @127.0.0.1:7001: notify-keyspace-events ...` */
export function blindLine(p: BlindPeriod): string {
  const to = p.to === undefined ? 'the end' : traceTime(p.to);
  return `blind ${traceTime(p.from)}-${to}${p.node ? ` @${p.node}` : ''}: ${p.detail}`;
}
