// One lock's open losses (owners that lost it without releasing and have not come back) and the
// exclusive acquisitions made while any was open: the checker's evidence for a later refusal. A
// loss stays open after its owner's first refusal, so a later act still lengthens its window.
// Every operation costs O(1) amortised, however many losses stay open: a lock taken with a 1 ms
// lease by a new token each time opens a loss per acquisition that no refusal ever closes, and
// a walk over all of them per event made such traffic quadratic (20,000 acquisitions: 26 s).

import type { TraceClient } from './events.js';

export type LossCause = 'expired' | 'deleted' | 'failover';

export interface Loss {
  /** Server epoch ms. */
  readonly at: number;
  readonly cause: LossCause;
  readonly client: TraceClient | undefined;
  /** What the owner did as holder since (set by its first such act); it lives and dies with the loss. */
  window?: StaleWindow;
}

/** Something an owner did as the lock's holder after it had lost it. */
export type HolderAct = 'renew' | 'release' | 'write';

/**
 * An owner that went on as holder after its loss, from the loss to its last act seen. The
 * findings it showed (indices in the checker's list) are re-issued when a later act extends it.
 */
export interface StaleWindow {
  readonly first: { readonly t: number; readonly act: HolderAct };
  last: { t: number; act: HolderAct };
  client: TraceClient | undefined;
  expiredFinding: number | undefined;
  /**
   * The overlaps a later act may still lengthen (the other hold had not ended by the last act),
   * by acquisition. One whose hold ended before is settled and dropped: a later act walks only
   * these and the acquisitions made since, so its cost does not grow with the window's age.
   */
  readonly openOverlaps: Map<Acquisition, number>;
}

export interface Acquisition {
  readonly owner: string;
  readonly t: number;
  readonly client: TraceClient | undefined;
  /** When this hold ended (released, expired, removed); undefined while it lasts. */
  end: number | undefined;
}

/** A lost holder that has not come back this long after its loss is not waited for any more. */
export const LOSS_HORIZON_MS = 300_000;
/** Acquisitions kept (the newest), and the open losses below which none is forgotten. */
export const KEPT = 1000;

/** An array used as a queue: shift is O(1) amortised (the consumed head is cut off in bulk). */
class Queue<T> implements Iterable<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): void {
    this.head++;
    if (this.head >= 64 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i] as T;
  }

  *newestFirst(): Generator<T> {
    for (let i = this.items.length - 1; i >= this.head; i--) yield this.items[i] as T;
  }
}

interface Opened {
  readonly owner: string;
  readonly loss: Loss;
}

export class OpenLosses {
  private readonly byOwner = new Map<string, Loss>();
  /** Losses in the order they were opened; one closed or reopened since is skipped when reached. */
  private readonly opened = new Queue<Opened>();
  private readonly acquisitions = new Queue<Acquisition>();
  /** Entries visited by upkeep (pruning, compacting): what keeps the cost per event bounded. */
  upkeepSteps = 0;
  /** Server ms of the newest loss opened (closed since or not): the lock's last loss. */
  lastOpenedAt = Number.NEGATIVE_INFINITY;

  get size(): number {
    return this.byOwner.size;
  }

  get(owner: string): Loss | undefined {
    return this.byOwner.get(owner);
  }

  open(owner: string, loss: Loss): void {
    this.byOwner.set(owner, loss);
    this.lastOpenedAt = Math.max(this.lastOpenedAt, loss.at);
    this.opened.push({ owner, loss });
    // Entries closed since are dropped only when reached: rebuild once they outnumber the open ones.
    if (this.opened.length > 2 * this.byOwner.size + KEPT) this.compact();
  }

  close(owner: string): void {
    this.byOwner.delete(owner);
  }

  /** An exclusive acquisition: evidence for any loss open now. */
  acquired(acquisition: Acquisition): void {
    if (this.byOwner.size === 0) return;
    this.acquisitions.push(acquisition);
    if (this.acquisitions.length > KEPT) {
      this.acquisitions.shift();
      this.upkeepSteps++;
    }
  }

  /** The acquisitions kept whose time is within [from, to], oldest first. */
  *acquiredBetween(from: number, to: number): Generator<Acquisition> {
    for (const a of this.acquisitions) if (a.t >= from && a.t <= to) yield a;
  }

  /** The acquisitions kept whose time is within (after, to], oldest first; found from the newest, so only those are visited. */
  acquiredAfter(after: number, to: number): Acquisition[] {
    const found: Acquisition[] = [];
    for (const a of this.acquisitions.newestFirst()) {
      if (a.t <= after) break;
      if (a.t <= to) found.push(a);
    }
    return found.reverse();
  }

  /**
   * Keeps memory flat on a long trace: with no loss open no acquisition is kept; with many open,
   * those older than LOSS_HORIZON_MS at `now` are forgotten (a crashed holder never comes back).
   */
  prune(now: number): void {
    if (this.byOwner.size === 0) {
      if (this.acquisitions.length > 0) this.acquisitions.clear();
      return;
    }
    if (this.byOwner.size < KEPT) return;
    for (let first = this.opened.peek(); first; first = this.opened.peek()) {
      const current = this.byOwner.get(first.owner) === first.loss;
      if (current && first.loss.at >= now - LOSS_HORIZON_MS) break;
      if (current) this.byOwner.delete(first.owner);
      this.opened.shift();
      this.upkeepSteps++;
    }
  }

  private compact(): void {
    this.upkeepSteps += this.opened.length;
    const live = [...this.opened].filter((o) => this.byOwner.get(o.owner) === o.loss);
    this.opened.clear();
    for (const o of live) this.opened.push(o);
  }
}
