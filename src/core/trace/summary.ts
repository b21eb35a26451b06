// The end-of-trace summary: per lock, how often it was taken, how long it was held and waited
// for (p50 / p99), how contended it was, and what the checker found on it.

import { percentiles } from '../race/stats.js';
import type { Finding } from './checker.js';
import type { TraceEvent } from './events.js';

export interface LockSummary {
  readonly lock: string;
  readonly acquisitions: number;
  readonly refusals: number;
  readonly releases: number;
  readonly expiries: number;
  readonly owners: number;
  readonly holdMs: { readonly p50: number; readonly p99: number } | undefined;
  readonly waitMs: { readonly p50: number; readonly p99: number } | undefined;
  readonly findings: number;
}

interface Tally {
  acquisitions: number;
  refusals: number;
  releases: number;
  expiries: number;
  readonly owners: Set<string>;
  readonly holding: Map<string, number>;
  readonly waiting: Map<string, number>;
  readonly holds: number[];
  readonly waits: number[];
}

const ENDS_HOLD = new Set(['expired', 'deleted', 'force-unlocked', 'lost-in-failover']);

/** Folds events into per-lock tallies, incrementally (the live view updates it as events come). */
export class TraceSummary {
  private readonly tallies = new Map<string, Tally>();

  push(e: TraceEvent): void {
    let t = this.tallies.get(e.lock);
    if (!t) {
      t = { acquisitions: 0, refusals: 0, releases: 0, expiries: 0, owners: new Set(), holding: new Map(), waiting: new Map(), holds: [], waits: [] };
      this.tallies.set(e.lock, t);
    }
    const owner = e.owner;
    if (owner !== undefined && e.kind !== 'raw') t.owners.add(owner);
    switch (e.kind) {
      case 'acquired':
      case 'reader-join': {
        if (owner === undefined || t.holding.has(owner)) break;
        t.acquisitions++;
        t.holding.set(owner, e.t);
        const since = t.waiting.get(owner);
        if (since !== undefined) t.waits.push(e.t - since);
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
    if (since !== undefined) t.holds.push(at - since);
    t.holding.delete(owner);
  }

  /** Per lock, most acquired first. */
  locks(findings: readonly Finding[]): LockSummary[] {
    const pct = (values: readonly number[]) => {
      if (values.length === 0) return undefined;
      const p = percentiles(values);
      return { p50: p.p50, p99: p.p99 };
    };
    return [...this.tallies]
      .map(([lock, t]) => ({
        lock,
        acquisitions: t.acquisitions,
        refusals: t.refusals,
        releases: t.releases,
        expiries: t.expiries,
        owners: t.owners.size,
        holdMs: pct(t.holds),
        waitMs: pct(t.waits),
        findings: findings.filter((f) => f.lock === lock).length,
      }))
      .sort((a, b) => b.acquisitions - a.acquisitions || a.lock.localeCompare(b.lock));
  }
}
