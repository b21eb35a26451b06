// The exporter's metrics folded from trace events (live, or synthesised from polled snapshots):
// counters and histogram observations go to a sink as they happen; gauges (holders, waiters,
// the oldest hold and its lease left) are read from the state at scrape time. Pure: the sink is
// prom-client in the exporter and a plain recorder in tests. Memory is bounded by the locks held
// or waited for now: a lock with neither is forgotten (here and in the checker, which keeps what a
// finding still needs: an owner that lost its lease and may act on, within its bounds).

import { TraceChecker } from '../trace/checker.js';
import type { FindingKind } from '../trace/finding-kinds.js';
import { isNodeEvent, type TraceEvent } from '../trace/events.js';
import type { LockGrouper } from './groups.js';
import { kindOf, libraryOf, type LockLabels } from './labels.js';

export const COUNTERS = [
  'acquisitions',
  'refusals',
  'releases',
  'renewals',
  'renewals_refused',
  'releases_refused',
  'expiries',
  'expired_while_held',
  'foreign_deletes',
  'renewal_gaps',
  'queue_overdue',
  'lost_in_failover',
  'overlaps',
] as const;
export type CounterName = (typeof COUNTERS)[number];

export type WaitOutcome = 'acquired' | 'abandoned';

export interface MetricSink {
  count(counter: CounterName, labels: LockLabels): void;
  /** One finding of the trace's checker, when it is issued (an update that lengthens it is not another). */
  found(labels: LockLabels, finding: FindingKind): void;
  wait(labels: LockLabels, outcome: WaitOutcome, seconds: number): void;
  hold(labels: LockLabels, seconds: number): void;
}

/** Per label set at one moment. */
export interface GaugeRow {
  readonly labels: LockLabels;
  readonly holders: number;
  readonly waiters: number;
  /** The longest current hold (s), and the lease left of that holder (s; undefined: no TTL). */
  readonly oldestHoldSeconds: number | undefined;
  readonly oldestLeaseLeftSeconds: number | undefined;
}

/** A waiter whose newest attempt is older than this gave up (node-redlock draws a new token per try). */
export const ABANDONED_WAIT_MS = 60_000;

const FINDING_COUNTERS: Partial<Record<FindingKind, CounterName>> = {
  'expired-while-held': 'expired_while_held',
  'foreign-delete': 'foreign_deletes',
  'renewal-gap': 'renewal_gaps',
  'overdue-queue-head': 'queue_overdue',
  overlap: 'overlaps',
};

const EVENT_COUNTERS: Partial<Record<TraceEvent['kind'], CounterName>> = {
  refused: 'refusals',
  renewed: 'renewals',
  'renew-refused': 'renewals_refused',
  'release-refused': 'releases_refused',
  expired: 'expiries',
  'lost-in-failover': 'lost_in_failover',
};

interface HoldState {
  readonly since: number;
  expiresAt: number | undefined;
  /** False for a hold first seen renewed (taken before the exporter started): its length is unknown. */
  readonly begun: boolean;
}

interface WaitState {
  readonly since: number;
  last: number;
  /** A fair-queue member waits without trying again: never abandoned by silence. */
  queued: boolean;
}

interface LockState {
  kind: string;
  library: string;
  readonly holds: Map<string, HoldState>;
  readonly waits: Map<string, WaitState>;
}

const ENDS_EVERY_HOLD: ReadonlySet<string> = new Set(['deleted', 'force-unlocked']);

/**
 * Keyspace notifications carry no values: when the key had changed again before it was read
 * back (a busy server), the source knows a hold began and ended but not whose (core/trace/
 * keyspace-decoder.ts). Those holds are counted and timed under this stand-in owner; a renewal
 * or an attempt without an owner names no hold and is skipped as before.
 */
const UNREAD_OWNER = '\u0000unread';
const HOLD_EVENTS: ReadonlySet<string> = new Set(['acquired', 'reader-join', 'released', 'reader-leave', 'expired', 'lost-in-failover']);

export class ExportFold {
  private readonly locks = new Map<string, LockState>();
  /** `trace`'s checker; it keeps no findings (they are counted here), only what is open. */
  private readonly checker = new TraceChecker({ keepFindings: false });

  constructor(
    private readonly grouper: LockGrouper,
    private readonly sink: MetricSink,
  ) {}

  labelsOf(lock: string): LockLabels {
    const s = this.locks.get(lock);
    return { group: this.grouper.groupOf(lock), kind: s?.kind ?? 'unknown', library: s?.library ?? 'unknown' };
  }

  push(events: readonly TraceEvent[]): void {
    for (const e of events) {
      if (isNodeEvent(e)) continue;
      const s = this.stateOf(e);
      const labels = this.labelsOf(e.lock);
      this.apply(s, e, labels);
      const counter = EVENT_COUNTERS[e.kind];
      if (counter) this.sink.count(counter, labels);
      for (const f of this.checker.push(e)) {
        if (f.update) continue;
        const found = FINDING_COUNTERS[f.kind];
        if (found) this.sink.count(found, this.labelsOf(f.lock));
        this.sink.found(this.labelsOf(f.lock), f.kind);
      }
      if (s.holds.size === 0 && s.waits.size === 0) this.locks.delete(e.lock);
    }
  }

  private stateOf(e: TraceEvent): LockState {
    let s = this.locks.get(e.lock);
    if (!s) this.locks.set(e.lock, (s = { kind: 'unknown', library: 'unknown', holds: new Map(), waits: new Map() }));
    const kind = kindOf(e);
    // Fair is learned from the queue, later than the first attempt; nothing is learned back from it.
    if (kind !== undefined && s.kind !== 'fair') s.kind = kind;
    s.library = libraryOf(e) ?? s.library;
    return s;
  }

  private apply(s: LockState, e: TraceEvent, labels: LockLabels): void {
    const owner = e.owner ?? (HOLD_EVENTS.has(e.kind) ? UNREAD_OWNER : undefined);
    switch (e.kind) {
      case 'attempt':
      case 'refused':
      case 'queue-join': {
        if (owner === undefined || s.holds.has(owner)) return;
        const w = s.waits.get(owner);
        if (w) (w.last = e.t), (w.queued ||= e.kind === 'queue-join');
        else s.waits.set(owner, { since: e.t, last: e.t, queued: e.kind === 'queue-join' });
        return;
      }
      case 'acquired':
      case 'reader-join': {
        if (owner === undefined) return;
        const w = s.waits.get(owner);
        s.waits.delete(owner);
        const held = s.holds.get(owner);
        if (held) return void (held.expiresAt = expiry(e));
        s.holds.set(owner, { since: e.t, expiresAt: expiry(e), begun: true });
        this.sink.count('acquisitions', labels);
        this.sink.wait(labels, 'acquired', Math.max(0, e.t - (w?.since ?? e.t)) / 1000);
        return;
      }
      case 'renewed': {
        if (owner === undefined) return;
        const held = s.holds.get(owner);
        if (held) held.expiresAt = expiry(e);
        else s.holds.set(owner, { since: e.t, expiresAt: expiry(e), begun: false });
        return;
      }
      case 'released':
      case 'reader-leave':
        if (e.count === 0 && owner !== undefined && this.endHold(s, owner, e.t, labels)) this.sink.count('releases', labels);
        return;
      case 'queue-leave': {
        // An acquiring waiter pops itself just before its acquired event: the wait goes on until
        // then; one that gave up tries no more and is swept as abandoned.
        const w = owner !== undefined ? s.waits.get(owner) : undefined;
        if (w) (w.queued = false), (w.last = e.t);
        return;
      }
      case 'expired':
      case 'lost-in-failover':
        if (owner !== undefined) this.endHold(s, owner, e.t, labels);
        return;
      default:
        if (ENDS_EVERY_HOLD.has(e.kind)) for (const o of [...s.holds.keys()]) this.endHold(s, o, e.t, labels);
    }
  }

  private endHold(s: LockState, owner: string, t: number, labels: LockLabels): boolean {
    const held = s.holds.get(owner);
    if (!held) return false;
    s.holds.delete(owner);
    if (held.begun) this.sink.hold(labels, Math.max(0, t - held.since) / 1000);
    return true;
  }

  /** Waiters silent for ABANDONED_WAIT_MS by server time `now` gave up: their waits end as abandoned. */
  sweep(now: number): void {
    for (const [lock, s] of this.locks) {
      for (const [owner, w] of s.waits) {
        if (w.queued || now - w.last < ABANDONED_WAIT_MS) continue;
        s.waits.delete(owner);
        this.sink.wait(this.labelsOf(lock), 'abandoned', (w.last - w.since) / 1000);
      }
      if (s.holds.size === 0 && s.waits.size === 0) this.locks.delete(lock);
    }
  }

  /** The gauges at server time `now`, one row per label set that has a holder or a waiter. */
  gauges(now: number): GaugeRow[] {
    const rows = new Map<string, { labels: LockLabels; holders: number; waiters: number; oldest: HoldState | undefined }>();
    for (const [lock, s] of this.locks) {
      const labels = this.labelsOf(lock);
      const id = `${labels.group}\u0000${labels.kind}\u0000${labels.library}`;
      let row = rows.get(id);
      if (!row) rows.set(id, (row = { labels, holders: 0, waiters: 0, oldest: undefined }));
      row.holders += s.holds.size;
      row.waiters += s.waits.size;
      for (const h of s.holds.values()) if (!row.oldest || h.since < row.oldest.since) row.oldest = h;
    }
    return [...rows.values()].map((r) => ({
      labels: r.labels,
      holders: r.holders,
      waiters: r.waiters,
      oldestHoldSeconds: r.oldest ? Math.max(0, now - r.oldest.since) / 1000 : undefined,
      oldestLeaseLeftSeconds: r.oldest?.expiresAt !== undefined ? Math.max(0, r.oldest.expiresAt - now) / 1000 : undefined,
    }));
  }
}

const expiry = (e: TraceEvent): number | undefined => (e.leaseMs !== undefined ? e.t + e.leaseMs : undefined);
