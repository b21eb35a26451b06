// The lanes a scenario run is drawn from: per client what it was doing at every moment, per node
// the faults it suffered and who the server said held the lock there, and the checker's violation
// windows. The text timeline and the ink swimlane both draw from this, so they never disagree.
// Works on a partial history too (a live run): whatever is still open runs to `now`.

import type { FaultEvent, History, LockLostEvent, NoteEvent, OpEvent, RenewedEvent } from './history.js';
import { faultText, lockLostText, opText, renewedText } from './timeline-events.js';
import type { Violation, ViolationKind } from './verdict.js';

/** What a client is doing; when several apply the later one in this list wins (crashed beats all). */
export const CLIENT_STATES = ['idle', 'waiting', 'holding', 'in-section', 'paused', 'crashed'] as const;
export type ClientState = (typeof CLIENT_STATES)[number];

/** A stretch of one client's time in one state. */
export interface ClientSegment {
  readonly from: number;
  readonly to: number;
  readonly state: ClientState;
  /** The client believed it held the lock (a paused holder, or a section entered without the lock). */
  readonly holds: boolean;
}

/** Point events worth a glyph or a log line. */
export type MarkKind =
  | 'acquire-fail'
  | 'release-ok'
  | 'release-fail'
  | 'renew-ok'
  | 'renew-fail'
  | 'write-ok'
  | 'write-rejected'
  | 'incr'
  | 'lost'
  | 'fault'
  | 'fault-fail'
  | 'note';

export interface Mark {
  readonly t: number;
  readonly kind: MarkKind;
  readonly text: string;
}

export interface ClientLane {
  readonly name: string;
  /** Contiguous, ordered, covering [0, end]. */
  readonly segments: readonly ClientSegment[];
  readonly marks: readonly Mark[];
}

/**
 * A fault that lasts: killed until restart, paused until resume, partitioned until heal; and a
 * trace's blind period on a node (it saw nothing there: a lost connection, a restart) until unblind.
 */
export type NodeFault = 'killed' | 'paused' | 'partitioned' | 'blind';

export interface FaultPeriod {
  readonly from: number;
  readonly to: number;
  readonly fault: NodeFault;
  /** Not ended by the time the history ends. */
  readonly open: boolean;
}

/** Who the server said held the lock on one node from `from` to `to` (never empty). */
export interface HolderSegment {
  readonly from: number;
  readonly to: number;
  readonly holders: readonly string[];
  /** PTTL when read: -1 is a lock with no TTL. */
  readonly ttlMs: number;
}

export interface NodeLane {
  readonly name: string;
  readonly faults: readonly FaultPeriod[];
  readonly holders: readonly HolderSegment[];
  /** Faults that do not last (failover, clock, latency, flush) and failed fault verbs. */
  readonly marks: readonly Mark[];
}

export interface ViolationWindow {
  /** A checker's kind: the scenario checker's, or a trace finding's. */
  readonly kind: ViolationKind | (string & {});
  readonly from: number;
  readonly to: number;
  readonly clients: readonly string[];
  readonly message: string;
}

export interface Lanes {
  /** ms since the run started: `now` while live, else the end event (or the last event). */
  readonly end: number;
  readonly clients: readonly ClientLane[];
  /** Only nodes something happened on (a fault or a server read), in topology order. */
  readonly nodes: readonly NodeLane[];
  readonly violations: readonly ViolationWindow[];
}


// A lasting fault starts with one verb and ends with another.
const FAULT_PERIODS: Readonly<Record<string, { readonly fault: NodeFault; readonly endedBy: string }>> = {
  kill: { fault: 'killed', endedBy: 'restart' },
  pause: { fault: 'paused', endedBy: 'resume' },
  partition: { fault: 'partitioned', endedBy: 'heal' },
  blind: { fault: 'blind', endedBy: 'unblind' },
};
const FAULT_ENDS = new Set(Object.values(FAULT_PERIODS).map((p) => p.endedBy));

/** What a lane chart needs of a violation; trace findings map onto it too. */
export type ViolationLike = Pick<Violation, 'from' | 'to' | 'clients' | 'message'> & { readonly kind: ViolationWindow['kind'] };

export interface LanesOptions {
  readonly violations?: readonly ViolationLike[];
  /** Live: draw up to here (ms since the run started) even if the last event is earlier. */
  readonly now?: number;
}

/** Derives every lane of a (possibly partial) history. */
export function deriveLanes(history: History, opts: LanesOptions = {}): Lanes {
  const endEvent = history.events.find((e) => e.kind === 'end');
  const last = history.events.reduce((max, e) => Math.max(max, e.t), 0);
  const end = endEvent?.t ?? Math.max(last, opts.now ?? 0);
  const clientNames = new Set(history.clients);
  for (const e of history.events) if (e.kind === 'op') clientNames.add(e.client);
  // One pass sorts events to their lanes: a long trace has many lanes and many events.
  const byLane = eventsByLane(history);
  return {
    end,
    clients: [...clientNames].map((name) => clientLane(byLane.get(name) ?? [], name, end)),
    nodes: nodeLanes(history, byLane, clientNames, end),
    violations: (opts.violations ?? []).map((v) => ({ kind: v.kind, from: v.from, to: Math.max(v.from, v.to), clients: v.clients, message: v.message })),
  };
}

/** The lane each event lands on, in history order: a client's (ops, notes, losses, renewals) or a node's (faults, server reads). */
function eventsByLane(history: History): Map<string, History['events'][number][]> {
  const byLane = new Map<string, History['events'][number][]>();
  const add = (lane: string, e: History['events'][number]) => {
    const list = byLane.get(lane);
    if (list) list.push(e);
    else byLane.set(lane, [e]);
  };
  for (const e of history.events) {
    if (e.kind === 'op' || e.kind === 'lock-lost' || e.kind === 'renewed') add(e.client, e);
    else if (e.kind === 'note' && e.lane !== undefined) add(e.lane, e);
    else if (e.kind === 'fault' || e.kind === 'server') add(e.node, e);
  }
  return byLane;
}

/** What lands on a client's lane besides its operations. */
type LaneEvent = NoteEvent | LockLostEvent | RenewedEvent;

interface Span {
  readonly from: number;
  readonly to: number;
  readonly state: ClientState;
}

function clientLane(events: readonly History['events'][number][], name: string, end: number): ClientLane {
  const ops = events.filter((e): e is OpEvent => e.kind === 'op' && e.client === name);
  const notes = events.filter(
    (e): e is LaneEvent => (e.kind === 'note' && e.lane === name) || ((e.kind === 'lock-lost' || e.kind === 'renewed') && e.client === name),
  );
  const faults = events.filter((e): e is FaultEvent => e.kind === 'fault' && e.node === name);
  const completion = new Map<number, OpEvent>();
  for (const e of ops) if (e.phase !== 'invoke' && !completion.has(e.id)) completion.set(e.id, e);
  const invoked = new Set(ops.filter((e) => e.phase === 'invoke').map((e) => e.id));
  const crashAt = ops.find((e) => e.op === 'crash')?.t;
  const stop = crashAt ?? end;

  const spans: Span[] = [];
  const marks: Mark[] = [];
  let holdFrom: number | undefined;
  let sectionFrom: number | undefined;
  const endHold = (t: number): void => {
    if (holdFrom !== undefined) spans.push({ from: holdFrom, to: t, state: 'holding' });
    holdFrom = undefined;
  };
  // Ops and lane events in time order (ties: ops first, as recorded); a lock-lost event ends the hold.
  const timeline: (OpEvent | LaneEvent)[] = [...ops, ...notes].sort((a, b) => a.t - b.t);
  for (const e of timeline) {
    // Nothing a dead client "does" afterwards counts (a completion arriving after its crash).
    if (e.t > stop || (e.t === crashAt && !(e.kind === 'op' && e.op === 'crash'))) continue;
    if (e.kind === 'lock-lost') {
      endHold(e.t);
      marks.push({ t: e.t, kind: 'lost', text: lockLostText(e) });
      continue;
    }
    if (e.kind === 'renewed') {
      marks.push({ t: e.t, kind: 'renew-ok', text: renewedText(e) });
      continue;
    }
    if (e.kind === 'note') {
      marks.push({ t: e.t, kind: 'note', text: e.text });
      continue;
    }
    const done = completion.get(e.id);
    switch (e.op) {
      case 'acquire':
        if (e.phase === 'invoke') spans.push({ from: e.t, to: Math.min(done?.t ?? stop, stop), state: 'waiting' });
        else if (e.phase === 'ok') holdFrom ??= e.t;
        else marks.push({ t: e.t, kind: 'acquire-fail', text: opText(e) });
        break;
      case 'release':
        // The client stops counting on the lock when it asks to give it back.
        if (e.phase === 'invoke' || !invoked.has(e.id)) endHold(e.t);
        if (e.phase !== 'invoke') marks.push({ t: e.t, kind: e.phase === 'ok' ? 'release-ok' : 'release-fail', text: opText(e) });
        break;
      case 'renew':
        if (e.phase !== 'invoke') marks.push({ t: e.t, kind: e.phase === 'ok' ? 'renew-ok' : 'renew-fail', text: opText(e) });
        break;
      case 'enter':
        if (e.phase === 'ok' || (e.phase === 'invoke' && done === undefined)) sectionFrom ??= e.t;
        break;
      case 'leave':
        if (e.phase === 'ok' && sectionFrom !== undefined) {
          spans.push({ from: sectionFrom, to: e.t, state: 'in-section' });
          sectionFrom = undefined;
        }
        break;
      case 'write':
      case 'incr':
        if (e.phase === 'ok') {
          const kind = e.accepted === false ? 'write-rejected' : e.op === 'incr' ? 'incr' : 'write-ok';
          marks.push({ t: e.t, kind, text: opText(e) });
        }
        break;
      case 'pause':
        if (e.phase === 'invoke') spans.push({ from: e.t, to: Math.min(done?.t ?? stop, stop), state: 'paused' });
        break;
      case 'crash':
        break;
    }
  }
  endHold(stop);
  if (sectionFrom !== undefined) spans.push({ from: sectionFrom, to: stop, state: 'in-section' });
  if (crashAt !== undefined) spans.push({ from: crashAt, to: end, state: 'crashed' });
  for (const f of faults) {
    if (f.phase === 'invoke') marks.push({ t: f.t, kind: 'fault', text: faultText(f) });
    else if (f.phase === 'fail') marks.push({ t: f.t, kind: 'fault-fail', text: faultText(f) });
  }
  return { name, segments: flatten(spans, end), marks: marks.sort((a, b) => a.t - b.t) };
}

const rank = (s: ClientState): number => CLIENT_STATES.indexOf(s);

/**
 * Overlapping spans to contiguous segments, the highest-ranked state winning at each instant. One
 * sweep over the cuts, counting the spans open in each state: a long trace has thousands of spans
 * per lane, and testing every span at every cut was quadratic.
 */
function flatten(spans: readonly Span[], end: number): ClientSegment[] {
  const cuts = [...new Set([0, end, ...spans.flatMap((s) => [s.from, s.to])])].filter((t) => t >= 0 && t <= end).sort((a, b) => a - b);
  // A span covers [from, to); an empty one covers the segment that starts at its instant.
  const starts = spans.filter((s) => s.to >= s.from).sort((a, b) => a.from - b.from);
  const ends = starts.filter((s) => s.to > s.from).sort((a, b) => a.to - b.to);
  const instants = starts.filter((s) => s.to === s.from);
  const open = CLIENT_STATES.map(() => 0);
  let started = 0;
  let ended = 0;
  let passed = 0;
  const out: ClientSegment[] = [];
  for (let i = 0; i + 1 < cuts.length || (i === 0 && cuts.length === 1); i++) {
    const from = cuts[i]!;
    const to = cuts[i + 1] ?? from;
    for (; started < starts.length && starts[started]!.from <= from; started++) open[rank(starts[started]!.state)]!++;
    for (; ended < ends.length && ends[ended]!.to <= from; ended++) open[rank(ends[ended]!.state)]!--;
    for (; passed < instants.length && instants[passed]!.from < from; passed++) open[rank(instants[passed]!.state)]!--;
    const top = open.findLastIndex((n) => n > 0);
    const state = top > 0 ? CLIENT_STATES[top]! : 'idle';
    const holds = open[rank('holding')]! > 0;
    const prev = out[out.length - 1];
    if (prev && prev.state === state && prev.holds === holds) out[out.length - 1] = { ...prev, to };
    else out.push({ from, to, state, holds });
  }
  return out;
}

function nodeLanes(history: History, byLane: ReadonlyMap<string, History['events'][number][]>, clients: ReadonlySet<string>, end: number): NodeLane[] {
  const names = new Set(history.nodes);
  for (const e of history.events) {
    const node = e.kind === 'fault' || e.kind === 'server' ? e.node : undefined;
    if (node !== undefined && !clients.has(node)) names.add(node);
  }
  return [...names].map((name) => nodeLane(byLane.get(name) ?? [], name, end)).filter((l) => l.faults.length + l.holders.length + l.marks.length > 0);
}

function nodeLane(events: readonly History['events'][number][], name: string, end: number): NodeLane {
  const faults: FaultPeriod[] = [];
  const marks: Mark[] = [];
  const open = new Map<NodeFault, number>();
  const holders: HolderSegment[] = [];
  let reading: { from: number; holders: readonly string[]; ttlMs: number } | undefined;
  const closeReading = (t: number): void => {
    if (reading && reading.holders.length > 0) holders.push({ from: reading.from, to: t, holders: reading.holders, ttlMs: reading.ttlMs });
    reading = undefined;
  };
  for (const e of events) {
    if (e.kind === 'server' && e.node === name) {
      closeReading(e.t);
      reading = { from: e.t, holders: e.holders, ttlMs: e.ttlMs };
    }
    if (e.kind !== 'fault' || e.node !== name) continue;
    if (e.phase === 'fail') {
      marks.push({ t: e.t, kind: 'fault-fail', text: faultText(e) });
      continue;
    }
    if (e.phase !== 'invoke') continue;
    const period = FAULT_PERIODS[e.verb];
    if (period) {
      if (!open.has(period.fault)) open.set(period.fault, e.t);
    } else if (FAULT_ENDS.has(e.verb)) {
      const fault = Object.values(FAULT_PERIODS).find((p) => p.endedBy === e.verb)!.fault;
      const from = open.get(fault);
      if (from !== undefined) faults.push({ from, to: e.t, fault, open: false });
      open.delete(fault);
      if (e.detail !== undefined) marks.push({ t: e.t, kind: 'fault', text: faultText(e) });
    } else marks.push({ t: e.t, kind: 'fault', text: faultText(e) });
  }
  closeReading(end);
  for (const [fault, from] of open) faults.push({ from, to: end, fault, open: true });
  return { name, faults: faults.sort((a, b) => a.from - b.from), holders, marks };
}
