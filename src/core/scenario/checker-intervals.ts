// Derives, from a flat history, what every check needs: each operation as one span (invoke paired
// with its completion), and per client the intervals it held the lock and was inside the critical
// section. Every interval is half-open [from, to): a section that ends at 100 and one that starts
// at 100 do not overlap.

import type { ClientOp, History, OpEvent } from './history.js';

/** How an interval ended: by the client's own operation, by its crash, or by the end of the history. */
export type EndedBy = 'op' | 'crash' | 'end';

/** One client operation: its invoke and its first completion (ok / fail), paired by id. */
export interface OpSpan {
  readonly client: string;
  readonly op: ClientOp;
  readonly id: number;
  readonly invoke: OpEvent | undefined;
  readonly done: OpEvent | undefined;
  /** The invoke's time, or the completion's when no invoke was recorded. */
  readonly from: number;
  /** The completion's time; an unfinished operation runs to the client's crash or the end of the history. */
  readonly to: number;
  readonly endedBy: EndedBy;
}

/** A stretch of time one client spent holding the lock or inside the critical section. */
export interface Interval {
  readonly client: string;
  readonly from: number;
  readonly to: number;
  readonly endedBy: EndedBy;
  /** Held (or entered under) a shared read lock. */
  readonly shared: boolean;
}

export interface Intervals {
  /** The end event's time, or the last event's. */
  readonly end: number;
  /** The history's clients, then any other client named by an event, in order of appearance. */
  readonly clients: readonly string[];
  /** In order of first appearance. */
  readonly spans: readonly OpSpan[];
  /** Each crashed client's crash time (its first crash event). */
  readonly crashes: ReadonlyMap<string, number>;
  /**
   * From an acquire ok to the release invoke (whatever its outcome: the client stops counting on the
   * lock when it asks to give it back), its crash, or the end. A second acquire ok while already
   * holding does not start a new hold, and the first release ends it.
   */
  readonly holds: readonly Interval[];
  /**
   * From an enter ok (or its invoke, if it never completed) to a leave ok, the client's crash, or the
   * end. A pause does not end it: a frozen client is still inside.
   */
  readonly sections: readonly Interval[];
}

interface Open {
  readonly from: number;
  readonly shared: boolean;
}

interface ClientState {
  hold: Open | undefined;
  section: Open | undefined;
  dead: boolean;
}

/** Pairs operations and derives holds and critical sections for every client. */
export function deriveIntervals(history: History): Intervals {
  const ops = history.events.filter((e): e is OpEvent => e.kind === 'op');
  const end = history.events.reduce((max, e) => Math.max(max, e.t), 0);
  const clients = [...history.clients];
  for (const e of ops) if (!clients.includes(e.client)) clients.push(e.client);

  const crashes = new Map<string, number>();
  for (const e of ops) if (e.op === 'crash' && !crashes.has(e.client)) crashes.set(e.client, e.t);

  const pairs = new Map<number, { invoke?: OpEvent; done?: OpEvent }>();
  for (const e of ops) {
    const pair = pairs.get(e.id) ?? {};
    if (e.phase === 'invoke') pair.invoke ??= e;
    else pair.done ??= e;
    pairs.set(e.id, pair);
  }
  const spans = [...pairs.entries()].map(([id, pair]) => toSpan(id, pair, crashes, end));
  const byId = new Map(spans.map((s) => [s.id, s]));

  const holds: Interval[] = [];
  const sections: Interval[] = [];
  const states = new Map<string, ClientState>();
  const close = (list: Interval[], client: string, open: Open | undefined, to: number, endedBy: EndedBy): undefined => {
    if (open) list.push({ client, from: open.from, to, endedBy, shared: open.shared });
    return undefined;
  };

  for (const e of ops) {
    const st = states.get(e.client) ?? { hold: undefined, section: undefined, dead: false };
    states.set(e.client, st);
    if (st.dead) continue; // nothing a dead client "does" afterwards counts
    const span = byId.get(e.id);
    switch (e.op) {
      case 'crash':
        st.hold = close(holds, e.client, st.hold, e.t, 'crash');
        st.section = close(sections, e.client, st.section, e.t, 'crash');
        st.dead = true;
        break;
      case 'acquire':
        if (e.phase === 'ok' && !st.hold) st.hold = { from: e.t, shared: e.shared ?? span?.invoke?.shared ?? false };
        break;
      case 'release':
        if (e.phase === 'invoke' || span?.invoke === undefined) st.hold = close(holds, e.client, st.hold, e.t, 'op');
        break;
      case 'enter': {
        const starts = e.phase === 'ok' || (e.phase === 'invoke' && span?.done === undefined);
        if (starts && !st.section) st.section = { from: e.t, shared: st.hold?.shared ?? false };
        break;
      }
      case 'leave':
        if (e.phase === 'ok') st.section = close(sections, e.client, st.section, e.t, 'op');
        break;
      default:
        break;
    }
  }
  for (const [client, st] of states) {
    close(holds, client, st.hold, end, 'end');
    close(sections, client, st.section, end, 'end');
  }
  const order = (a: Interval, b: Interval): number => a.from - b.from || clients.indexOf(a.client) - clients.indexOf(b.client);
  return { end, clients, spans, crashes, holds: holds.sort(order), sections: sections.sort(order) };
}

function toSpan(id: number, pair: { invoke?: OpEvent; done?: OpEvent }, crashes: ReadonlyMap<string, number>, end: number): OpSpan {
  const first = (pair.invoke ?? pair.done) as OpEvent;
  const from = first.t;
  const crash = crashes.get(first.client);
  // A crash during the operation ends it there, even if a late failure ("connection closed") was recorded.
  const cut = crash !== undefined && crash >= from && (pair.done === undefined || crash < pair.done.t) && first.op !== 'crash';
  const to = cut ? crash : (pair.done?.t ?? end);
  const endedBy: EndedBy = cut ? 'crash' : pair.done ? 'op' : 'end';
  return { client: first.client, op: first.op, id, invoke: pair.invoke, done: pair.done, from, to, endedBy };
}

/** Spans of one operation that completed ok. */
export function completed(intervals: Intervals, op: ClientOp): OpSpan[] {
  return intervals.spans.filter((s) => s.op === op && s.done?.phase === 'ok');
}

/** Whether [a.from, a.to) and [b.from, b.to) share any time; touching intervals do not. */
export function overlaps(a: { from: number; to: number }, b: { from: number; to: number }): boolean {
  return a.from < b.to && b.from < a.to;
}
