// The end-of-trace summary: per lock, how often it was taken, how long it was held and waited
// for (p50 / p99, from streaming histograms: durations.ts), how contended it was, and what the
// checker found on it.

import type { Finding } from './checker.js';
import { DurationHistogram } from './durations.js';
import { isNodeEvent, type TraceEvent } from './events.js';
import { OwnerMap } from './owner-map.js';

export interface LockSummary {
  readonly lock: string;
  readonly acquisitions: number;
  readonly refusals: number;
  readonly releases: number;
  readonly expiries: number;
  /** Distinct client connections (address or name) that used the lock. */
  readonly clients: number;
  readonly holdMs: { readonly p50: number; readonly p99: number } | undefined;
  readonly waitMs: { readonly p50: number; readonly p99: number } | undefined;
  readonly findings: number;
}

interface Tally {
  acquisitions: number;
  refusals: number;
  releases: number;
  expiries: number;
  readonly clients: Set<string>;
  /** The client added last: an owner's events come in a row from one client, and need no set lookup each. */
  lastClient: string | undefined;
  /**
   * Each owner's wait and hold, in one entry: an acquisition turns the wait into the hold in place,
   * where one map per role took an insert and a delete in each per hold.
   */
  readonly owners: OwnerMap<OwnerTally>;
  /** Owners in `owners` with a wait. */
  waiting: number;
  /** Made at the first hold or wait: most locks of a busy trace have no waits at all. */
  holds: DurationHistogram | undefined;
  waits: DurationHistogram | undefined;
}

/** One owner on one lock: since when it waits (first attempt or refusal) and holds; the entry goes with both. */
interface OwnerTally {
  waitSince: number | undefined;
  holdSince: number | undefined;
}

/** Clients named per lock, and owners waiting per lock, before the oldest waits are dropped. */
const TALLY_LIMIT = 10_000;
/** A wait not ended by an acquisition within this long was given up (node-redlock draws a new token per try). */
const ABANDONED_WAIT_MS = 60_000;

const ENDS_HOLD = new Set(['expired', 'deleted', 'force-unlocked', 'lost-in-failover']);

/** Folds events into per-lock tallies, incrementally (the live view updates it as events come). */
export class TraceSummary {
  private readonly tallies = new Map<string, Tally>();

  push(e: TraceEvent): void {
    if (isNodeEvent(e)) return;
    let t = this.tallies.get(e.lock);
    if (!t) {
      t = { acquisitions: 0, refusals: 0, releases: 0, expiries: 0, clients: new Set(), lastClient: undefined, owners: new OwnerMap(), waiting: 0, holds: undefined, waits: undefined };
      this.tallies.set(e.lock, t);
    }
    const owner = e.owner;
    const client = e.client?.name ?? e.client?.addr;
    if (client !== undefined && client !== t.lastClient && t.clients.size < TALLY_LIMIT) t.clients.add((t.lastClient = client));
    if (t.waiting > TALLY_LIMIT) forgetAbandoned(t, e.t - ABANDONED_WAIT_MS);
    switch (e.kind) {
      case 'acquired':
      case 'reader-join': {
        if (owner === undefined) break;
        const o = t.owners.get(owner);
        if (o?.holdSince !== undefined) break;
        t.acquisitions++;
        if (o === undefined) {
          t.owners.set(owner, { waitSince: undefined, holdSince: e.t });
          break;
        }
        o.holdSince = e.t;
        if (o.waitSince !== undefined) (t.waits ??= new DurationHistogram()).add(e.t - o.waitSince), (o.waitSince = undefined), t.waiting--;
        break;
      }
      case 'refused':
      case 'queue-join':
      case 'attempt': {
        if (e.kind === 'refused') t.refusals++;
        if (owner === undefined) break;
        const o = t.owners.get(owner);
        if (o === undefined) t.owners.set(owner, { waitSince: e.t, holdSince: undefined }), t.waiting++;
        else if (o.waitSince === undefined) (o.waitSince = e.t), t.waiting++;
        break;
      }
      case 'released':
      case 'reader-leave':
        if (e.count === 0 && owner !== undefined) this.endHold(t, owner, e.t), t.releases++;
        break;
      default:
        if (!ENDS_HOLD.has(e.kind)) break;
        if (e.kind === 'expired') t.expiries++;
        for (const o of owner !== undefined ? [owner] : (e.holders ?? [])) this.endHold(t, o, e.t);
    }
  }

  private endHold(t: Tally, owner: string, at: number): void {
    const o = t.owners.get(owner);
    if (o?.holdSince === undefined) return;
    (t.holds ??= new DurationHistogram()).add(at - o.holdSince);
    o.holdSince = undefined;
    if (o.waitSince === undefined) t.owners.delete(owner);
  }

  /** Per lock, most acquired first. */
  locks(findings: readonly Finding[]): LockSummary[] {
    return [...this.tallies]
      .map(([lock, t]) => ({
        lock,
        acquisitions: t.acquisitions,
        refusals: t.refusals,
        releases: t.releases,
        expiries: t.expiries,
        clients: t.clients.size,
        holdMs: t.holds?.percentiles(),
        waitMs: t.waits?.percentiles(),
        findings: findings.filter((f) => f.lock === lock).length,
      }))
      .sort((a, b) => b.acquisitions - a.acquisitions || a.lock.localeCompare(b.lock));
  }
}

/** Drops the waits begun before `before`: given up, never to end in an acquisition. */
function forgetAbandoned(t: Tally, before: number): void {
  for (const [owner, o] of t.owners) {
    if (o.waitSince === undefined || o.waitSince >= before) continue;
    o.waitSince = undefined;
    t.waiting--;
    if (o.holdSince === undefined) t.owners.delete(owner);
  }
}
