// The end-of-trace summary: per lock, how often it was taken, how long it was held and waited
// for (p50 / p99, from streaming histograms: durations.ts), how contended it was, and what the
// checker found on it.

import type { Finding } from './checker.js';
import { DurationHistogram } from './durations.js';
import { isNodeEvent, type TraceEvent } from './events.js';

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
  readonly holding: Map<string, number>;
  readonly waiting: Map<string, number>;
  /** Made at the first hold or wait: most locks of a busy trace have no waits at all. */
  holds: DurationHistogram | undefined;
  waits: DurationHistogram | undefined;
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
      t = { acquisitions: 0, refusals: 0, releases: 0, expiries: 0, clients: new Set(), holding: new Map(), waiting: new Map(), holds: undefined, waits: undefined };
      this.tallies.set(e.lock, t);
    }
    const owner = e.owner;
    const client = e.client?.name ?? e.client?.addr;
    if (client !== undefined && t.clients.size < TALLY_LIMIT) t.clients.add(client);
    if (t.waiting.size > TALLY_LIMIT) for (const [o, since] of t.waiting) if (since < e.t - ABANDONED_WAIT_MS) t.waiting.delete(o);
    switch (e.kind) {
      case 'acquired':
      case 'reader-join': {
        if (owner === undefined || t.holding.has(owner)) break;
        t.acquisitions++;
        t.holding.set(owner, e.t);
        const since = t.waiting.get(owner);
        if (since !== undefined) (t.waits ??= new DurationHistogram()).add(e.t - since);
        t.waiting.delete(owner);
        break;
      }
      case 'refused':
      case 'queue-join':
      case 'attempt':
        if (e.kind === 'refused') t.refusals++;
        if (owner !== undefined && !t.waiting.has(owner)) t.waiting.set(owner, e.t);
        break;
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
    const since = t.holding.get(owner);
    if (since !== undefined) (t.holds ??= new DurationHistogram()).add(at - since);
    t.holding.delete(owner);
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
