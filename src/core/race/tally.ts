// Running figures of a race, folded from the same history events the checker reads: the live
// view asks for a snapshot a few times a second, the summary once at the end. Pure.

import type { HistoryEvent, OpEvent } from '../scenario/history.js';
import { jainIndex, percentiles, rateSeries, type Percentiles } from './stats.js';

/** acquire fail details: the wait ran out, or the race was stopping (not counted as a timeout). */
export const TIMED_OUT = 'timed out';
export const STOPPED = 'stopped';
/**
 * Release outcomes that mean the hold had already lost the lock: the owner-checked release was
 * refused, or a naive DEL removed another client's lock (or found none).
 */
export const LOST_AT_RELEASE: readonly string[] = ['not-owner', 'deleted-other', 'gone'];

export interface ClientShare {
  readonly client: string;
  readonly acquisitions: number;
  /** Of all acquisitions on the client's key. */
  readonly share: number;
}

export interface KeySnapshot {
  readonly key: string;
  readonly clients: number;
  readonly acquisitions: number;
  /** Clients between an acquire ok and their release: more than one is a violation in the making. */
  readonly holders: readonly string[];
  /** Clients waiting in acquire right now. */
  readonly waiting: number;
  readonly fairness: number;
}

export interface RaceSnapshot {
  readonly elapsedMs: number;
  readonly acquisitions: number;
  /** Acquisitions per second over the run so far. */
  readonly ratePerSec: number;
  /** Acquisitions in each whole second so far. */
  readonly series: readonly number[];
  readonly waits: Percentiles;
  /**
   * The same races' waits and holds on the server's clock (the TIME behind each lock command),
   * as the exporter measures them from MONITOR; absent where nothing was timed (Redlock).
   */
  readonly serverTimed?: { readonly waits: Percentiles; readonly holds: Percentiles };
  readonly timeouts: number;
  /** Acquisition attempts the server refused (each try of a waiting acquire counts). */
  readonly refusals: number;
  /** Acquire or release attempts that failed with an error (connection lost, failover, ...). */
  readonly errors: number;
  /** Holds that ended without the lock: found by the watchdog, or by a refused release. */
  readonly lostLocks: number;
  /** Releases refused because the lock was no longer the client's. */
  readonly notOwner: number;
  /** Naive DELs (--release naive-del) that removed another client's lock. */
  readonly foreignDeletes: number;
  readonly increments: number;
  readonly fairness: number;
  /** Every client's share, most acquisitions first. */
  readonly shares: readonly ClientShare[];
  readonly keys: readonly KeySnapshot[];
  /** Fault lines in the order they fired ("2.0 s pause c7 for 420 ms"). */
  readonly faults: readonly string[];
  readonly crashed: number;
}

interface KeyState {
  readonly clients: Set<string>;
  readonly holders: Set<string>;
  readonly waiting: Set<string>;
  acquisitions: number;
}

/** Folds history events into counters; `snapshot(now)` is cheap enough for a live view. */
export class RaceTally {
  private readonly keyOf = new Map<string, string>();
  private readonly keys = new Map<string, KeyState>();
  private readonly counts = new Map<string, number>();
  private readonly invokedAt = new Map<number, number>();
  private readonly waits: number[] = [];
  private readonly serverWaits: number[] = [];
  private readonly serverHolds: number[] = [];
  private readonly okTimes: number[] = [];
  private readonly faultLines: string[] = [];
  private readonly faultStarts = new Map<number, { readonly what: string; readonly t: number }>();
  /** Clients whose current hold was already counted as lost (by their watchdog). */
  private readonly lostHold = new Set<string>();
  private readonly dead = new Set<string>();
  private timeouts = 0;
  private refusals = 0;
  private errors = 0;
  private lost = 0;
  private notOwner = 0;
  private foreignDeletes = 0;
  private increments = 0;

  constructor(clients: Iterable<{ readonly name: string; readonly key: string }> = []) {
    for (const c of clients) this.addClient(c.name, c.key);
  }

  /** A client joins (at the start, or replacing a crashed one). */
  addClient(name: string, key: string): void {
    this.keyOf.set(name, key);
    this.counts.set(name, this.counts.get(name) ?? 0);
    this.keyState(key).clients.add(name);
  }

  add(event: HistoryEvent): void {
    if (event.kind === 'op') this.addOp(event);
    else if (event.kind === 'lock-lost' && !this.lostHold.has(event.client)) {
      this.lost += 1;
      this.lostHold.add(event.client);
    }
    else if (event.kind === 'fault') this.addFault(event.phase, event.id, `${event.verb} ${event.node}`, event.t, event.detail);
  }

  private addFault(phase: string, id: number, what: string, t: number, detail: string | undefined): void {
    if (phase === 'invoke') {
      this.faultStarts.set(id, { what, t });
      return;
    }
    // Said at the time the fault began; it is listed once it has done its work.
    const start = this.faultStarts.get(id) ?? { what, t };
    const failed = phase === 'fail' ? ' FAILED' : '';
    this.faultLines.push(`${(start.t / 1000).toFixed(1)} s ${start.what}${failed}${detail ? `: ${detail}` : ''}`);
  }

  private addOp(e: OpEvent): void {
    const key = this.keyOf.get(e.client);
    if (key === undefined || this.dead.has(e.client)) return;
    const ks = this.keyState(key);
    if (e.op === 'crash') {
      this.dead.add(e.client);
      ks.holders.delete(e.client);
      ks.waiting.delete(e.client);
      ks.clients.delete(e.client);
      return;
    }
    if (e.op === 'acquire') {
      if (e.phase === 'invoke') {
        this.invokedAt.set(e.id, e.t);
        ks.waiting.add(e.client);
        return;
      }
      const from = this.invokedAt.get(e.id);
      this.invokedAt.delete(e.id);
      this.refusals += e.refusals ?? 0;
      ks.waiting.delete(e.client);
      if (e.phase === 'ok') {
        this.lostHold.delete(e.client);
        ks.acquisitions += 1;
        ks.holders.add(e.client);
        this.counts.set(e.client, (this.counts.get(e.client) ?? 0) + 1);
        this.okTimes.push(e.t);
        if (from !== undefined) this.waits.push(e.t - from);
        if (e.serverWaitMs !== undefined) this.serverWaits.push(e.serverWaitMs);
      } else if (e.detail === TIMED_OUT) this.timeouts += 1;
      else if (e.detail !== STOPPED) this.errors += 1;
      return;
    }
    if (e.op === 'release') {
      if (e.phase === 'invoke') ks.holders.delete(e.client);
      else if (e.phase === 'fail') this.errors += 1;
      else if (e.serverHoldMs !== undefined) this.serverHolds.push(e.serverHoldMs);
      if (e.phase === 'ok' && e.detail !== undefined && LOST_AT_RELEASE.includes(e.detail)) {
        if (e.detail === 'not-owner') this.notOwner += 1;
        if (e.detail === 'deleted-other') this.foreignDeletes += 1;
        // Found out only at release: lost all the same, unless the watchdog had said so already.
        if (!this.lostHold.has(e.client)) this.lost += 1;
        this.lostHold.add(e.client);
      }
      return;
    }
    if (e.op === 'incr' && e.phase === 'ok' && e.accepted !== false) this.increments += 1;
  }

  private keyState(key: string): KeyState {
    let ks = this.keys.get(key);
    if (!ks) {
      ks = { clients: new Set(), holders: new Set(), waiting: new Set(), acquisitions: 0 };
      this.keys.set(key, ks);
    }
    return ks;
  }

  /** Clients between an acquire ok and their release invoke, on every key. */
  holders(): string[] {
    return [...this.keys.values()].flatMap((ks) => [...ks.holders]);
  }

  /** The figures at `nowMs` since the start; `recentWaits` bounds the percentile work of a live view. */
  snapshot(nowMs: number, recentWaits = Number.POSITIVE_INFINITY): RaceSnapshot {
    const acquisitions = this.okTimes.length;
    const all = [...this.counts.entries()];
    const total = (key: string): number => this.keys.get(key)?.acquisitions ?? 0;
    const shares = all
      .map(([client, n]) => ({ client, acquisitions: n, share: total(this.keyOf.get(client) ?? '') > 0 ? n / total(this.keyOf.get(client) ?? '') : 0 }))
      .sort((a, b) => b.acquisitions - a.acquisitions || a.client.localeCompare(b.client, 'en', { numeric: true }));
    const recent = (values: number[]): number[] => (Number.isFinite(recentWaits) ? values.slice(-recentWaits) : values);
    const waits = recent(this.waits);
    const keys = [...this.keys.entries()].map(([key, ks]) => ({
      key,
      clients: ks.clients.size,
      acquisitions: ks.acquisitions,
      holders: [...ks.holders],
      waiting: ks.waiting.size,
      fairness: jainIndex(all.filter(([c]) => this.keyOf.get(c) === key).map(([, n]) => n)),
    }));
    return {
      elapsedMs: nowMs,
      acquisitions,
      ratePerSec: nowMs > 0 ? (acquisitions * 1000) / nowMs : 0,
      series: rateSeries(this.okTimes, Math.max(1000, Math.floor(nowMs / 1000) * 1000)),
      waits: percentiles(waits),
      ...(this.serverWaits.length > 0 ? { serverTimed: { waits: percentiles(recent(this.serverWaits)), holds: percentiles(recent(this.serverHolds)) } } : {}),
      timeouts: this.timeouts,
      refusals: this.refusals,
      errors: this.errors,
      lostLocks: this.lost,
      notOwner: this.notOwner,
      foreignDeletes: this.foreignDeletes,
      increments: this.increments,
      // Over all clients, crashed ones included: their share was real while they lived.
      fairness: keys.length === 1 ? (keys[0]?.fairness ?? 1) : jainIndex(all.map(([, n]) => n)),
      shares,
      keys,
      faults: [...this.faultLines],
      crashed: this.dead.size,
    };
  }
}
