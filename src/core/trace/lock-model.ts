// What the trace believes each lock looks like on the server right now: its holders and when its
// lease runs out, rebuilt from the commands seen. Where a script's own commands show what the
// server had (it found the key gone, it found the holder), that evidence wins over the belief.

import type { TraceClient, TraceEvent, TraceLibrary } from './events.js';

export interface Hold {
  count: number;
  readonly shared: boolean;
  readonly client: TraceClient;
}

export interface LockState {
  readonly lock: string;
  library: TraceLibrary;
  readonly holders: Map<string, Hold>;
  /** Server epoch ms the lease runs out; undefined: no TTL. */
  expiresAt: number | undefined;
  /** The lease last set, for the expired event's words. */
  leaseMs: number | undefined;
  /** A read-write lock's mode, from its `mode` field. */
  mode: 'read' | 'write' | undefined;
  /** Fair lock waiters in queue order, with their deadlines when seen. */
  readonly queue: string[];
  readonly deadlines: Map<string, number>;
}

const NOTHING: TraceEvent[] = [];
/** Application data keys remembered at most (the oldest forgotten first): a busy server's SETs must not grow the trace. */
export const DATA_KEYS_KEPT = 1024;

export class LockModel {
  private readonly locks = new Map<string, LockState>();
  private nextExpiry = Number.POSITIVE_INFINITY;
  /** Keys a plain SET wrote before any lock was seen on them: application data, if a lock later asks for the key. */
  private readonly data = new Set<string>();

  constructor(private readonly node?: string) {}

  get(lock: string): LockState | undefined {
    return this.locks.get(lock);
  }

  /** The lock's state, created the first time it is seen as a lock. */
  state(lock: string, library: TraceLibrary): LockState {
    let s = this.locks.get(lock);
    if (!s) {
      s = { lock, library, holders: new Map(), expiresAt: undefined, leaseMs: undefined, mode: undefined, queue: [], deadlines: new Map() };
      this.locks.set(lock, s);
    }
    return s;
  }

  /** Server time of the earliest lease that may run out next (infinity: none); may be early, never late. */
  get nextExpiryAt(): number {
    return this.nextExpiry;
  }

  has(lock: string): boolean {
    return this.locks.has(lock);
  }

  setExpiry(s: LockState, t: number, leaseMs: number | undefined): void {
    s.leaseMs = leaseMs;
    s.expiresAt = leaseMs === undefined ? undefined : t + leaseMs;
    if (s.expiresAt !== undefined && s.expiresAt < this.nextExpiry) this.nextExpiry = s.expiresAt;
  }

  /** Holders whose lease ran out by server time `t`, as expired events (at the computed expiry). */
  expireUntil(t: number): TraceEvent[] {
    if (t < this.nextExpiry) return NOTHING;
    const out: TraceEvent[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const s of this.locks.values()) {
      if (s.expiresAt === undefined || s.holders.size === 0) continue;
      if (s.expiresAt <= t) out.push(...this.expire(s, s.expiresAt));
      else next = Math.min(next, s.expiresAt);
    }
    this.nextExpiry = next;
    return out.sort((a, b) => a.t - b.t);
  }

  /** Ends every hold of `s` at `t` as expired (`detail` says why, when not the computed lease). */
  expire(s: LockState, t: number, detail?: string): TraceEvent[] {
    const holders = [...s.holders.keys()];
    const out = [...s.holders].map(([owner, hold]): TraceEvent => ({
      kind: 'expired',
      t,
      lock: s.lock,
      owner,
      client: hold.client,
      library: s.library,
      holders,
      ...(hold.shared ? { shared: true } : {}),
      ...(s.leaseMs !== undefined ? { leaseMs: s.leaseMs } : {}),
      ...(this.node ? { node: this.node } : {}),
      ...(detail ? { detail } : {}),
    }));
    s.holders.clear();
    s.expiresAt = undefined;
    s.mode = undefined;
    return out;
  }

  /** Ends every hold of `s` at `t` because the lock is absent on a promoted primary. */
  lose(s: LockState, t: number, detail: string): TraceEvent[] {
    const out = [...s.holders].map(([owner, hold]): TraceEvent => ({ kind: 'lost-in-failover', t, lock: s.lock, owner, client: hold.client, library: s.library, detail, ...(this.node ? { node: this.node } : {}) }));
    this.clear(s);
    return out;
  }

  /** True while `s` has holders whose lease has not run out at `t`. */
  alive(s: LockState, t: number): boolean {
    return s.holders.size > 0 && (s.expiresAt === undefined || s.expiresAt > t);
  }

  /** Every lock with holders now (for a failover check). */
  held(): LockState[] {
    return [...this.locks.values()].filter((s) => s.holders.size > 0);
  }

  /** Forgets a lock whose data was removed, so a later use starts it afresh. */
  clear(s: LockState): void {
    s.holders.clear();
    s.expiresAt = undefined;
    s.mode = undefined;
    // Only a fair lock has a queue: the others (nearly every release) skip clearing empty ones.
    if (s.queue.length > 0) s.queue.length = 0;
    if (s.deadlines.size > 0) s.deadlines.clear();
  }

  /** A plain SET of a key not known as a lock: remembered, so a lock refused on it can say the key holds data. */
  noteData(key: string): void {
    this.data.delete(key);
    this.data.add(key);
    if (this.data.size > DATA_KEYS_KEPT) this.data.delete(this.data.values().next().value!);
  }

  /** Whether the key was last written as application data (no lock has taken it since, nobody deleted it). */
  holdsData(key: string): boolean {
    return this.data.has(key);
  }

  forgetData(key: string): void {
    this.data.delete(key);
  }

  all(): IterableIterator<LockState> {
    return this.locks.values();
  }
}
