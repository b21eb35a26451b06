// The decoder's per-line gatherings (decoder.ts), kept in reused storage: they run for every line
// of a log of gigabytes, where a fresh array or set per line was a good share of the garbage.

import type { TraceEvent } from './events.js';

/**
 * The events of the line being decoded, gathered in one reused array and handed out at their
 * exact count: a fresh array per line, grown by push, reserves room for 16 or more.
 */
export class EventBuffer {
  private readonly events: TraceEvent[] = [];
  count = 0;

  add(e: TraceEvent): void {
    this.events[this.count++] = e;
  }

  /** The events added since `count` was `from`. */
  since(from: number): TraceEvent[] {
    return this.events.slice(from, this.count);
  }

  /** Every event gathered (undefined: none); the buffer starts again empty. */
  take(): TraceEvent[] | undefined {
    if (this.count === 0) return undefined;
    const events = this.events.slice(0, this.count);
    // The slots keep their old events until overwritten: a few, never more than one line made.
    this.count = 0;
    return events;
  }
}

/**
 * Lock and owner pairs, each added once. An operation announces one or two attempts (a group
 * multi-lock one per value): they are compared in place, without a string or a hash table per
 * operation; past a few, a set takes the rest.
 */
export class AttemptsSeen {
  private readonly locks: string[] = [];
  private readonly owners: string[] = [];
  private count = 0;
  private more: Set<string> | undefined;

  /** False when the pair was added before. */
  add(lock: string, owner: string): boolean {
    for (let i = 0; i < this.count; i++) if (this.locks[i] === lock && this.owners[i] === owner) return false;
    if (this.count < FEW_ATTEMPTS) {
      this.locks[this.count] = lock;
      this.owners[this.count++] = owner;
      return true;
    }
    const key = `${lock}\u0000${owner}`;
    if (this.more?.has(key)) return false;
    (this.more ??= new Set()).add(key);
    return true;
  }

  clear(): void {
    this.count = 0;
    this.more = undefined;
  }
}

const FEW_ATTEMPTS = 8;
