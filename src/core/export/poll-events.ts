// `export --source poll`: where neither MONITOR nor keyspace notifications are allowed, the
// keyspace is decoded every interval (the read-only snapshots of `ls`) and each change between
// two snapshots becomes the trace event it implies: a new holder acquired, a lease pushed later
// was renewed, a holder gone before its lease ended released, one gone after expired (at the
// lease's end), a fair-queue member joined or left. The exporter's fold then reads these as it
// reads a live trace. What happens between two polls is not seen: a hold shorter than the
// interval is missed, durations are known to the interval, and there are no refusals.

import type { LockView } from '../lock-view.js';
import type { TraceEvent, TraceLibrary } from '../trace/events.js';

interface HolderSeen {
  readonly shared: boolean;
  /** Server epoch ms the lease ends; undefined: no TTL. */
  expiresAt: number | undefined;
}

interface LockSeen {
  readonly library: TraceLibrary;
  readonly holders: Map<string, HolderSeen>;
  readonly queue: Set<string>;
}

/** A lease end moved later by more than this between two polls is a renewal (PTTL is read at 1 ms). */
const RENEWED_BY_MS = 5;

const REDISSON_KINDS: ReadonlySet<string> = new Set(['reentrant', 'fair', 'rw', 'fenced', 'multi-lock']);

function libraryOf(view: LockView): TraceLibrary | undefined {
  if (view.kind === 'token') return 'token';
  return REDISSON_KINDS.has(view.kind) ? 'redisson' : undefined;
}

function holdersOf(view: LockView): Map<string, HolderSeen> {
  const expiresAt = view.ttlMs >= 0 ? view.readAt + view.ttlMs : undefined;
  const out = new Map<string, HolderSeen>();
  for (const h of view.holders) out.set(h.owner, { shared: false, expiresAt });
  for (const r of view.readers ?? []) out.set(r.owner, { shared: true, expiresAt });
  return out;
}

export class PollDiff {
  private readonly seen = new Map<string, LockSeen>();

  /**
   * The events between the previous snapshot and this one. `complete`: the scan saw every lock
   * (no limit reached, every node read), so a lock it did not return is gone.
   */
  step(views: readonly LockView[], now: number, complete: boolean): TraceEvent[] {
    const out: TraceEvent[] = [];
    const present = new Set<string>();
    for (const view of views) {
      const library = libraryOf(view);
      if (library === undefined) continue;
      present.add(view.key);
      const before = this.seen.get(view.key) ?? { library, holders: new Map(), queue: new Set() };
      const after: LockSeen = { library, holders: holdersOf(view), queue: new Set((view.queue ?? []).map((q) => q.owner)) };
      this.changes(view.key, before, after, view.readAt, out);
      this.seen.set(view.key, after);
    }
    if (complete) {
      for (const [lock, before] of this.seen) {
        if (present.has(lock)) continue;
        this.changes(lock, before, { library: before.library, holders: new Map(), queue: new Set() }, now, out);
        this.seen.delete(lock);
      }
    }
    return out.sort((a, b) => a.t - b.t);
  }

  private changes(lock: string, before: LockSeen, after: LockSeen, t: number, out: TraceEvent[]): void {
    const library = after.library;
    for (const owner of after.queue) if (!before.queue.has(owner)) out.push({ kind: 'queue-join', t, lock, owner, library });
    for (const [owner, was] of before.holders) {
      const now = after.holders.get(owner);
      if (now) {
        if (now.expiresAt !== undefined && was.expiresAt !== undefined && now.expiresAt > was.expiresAt + RENEWED_BY_MS)
          out.push({ kind: 'renewed', t, lock, owner, library, leaseMs: now.expiresAt - t });
        continue;
      }
      const expired = was.expiresAt !== undefined && was.expiresAt <= t;
      if (expired) out.push({ kind: 'expired', t: was.expiresAt!, lock, owner, library, ...(was.shared ? { shared: true } : {}) });
      else out.push({ kind: was.shared ? 'reader-leave' : 'released', t, lock, owner, library, count: 0 });
    }
    for (const owner of before.queue) if (!after.queue.has(owner) && !after.holders.has(owner)) out.push({ kind: 'queue-leave', t, lock, owner, library });
    for (const [owner, now] of after.holders) {
      if (before.holders.has(owner)) continue;
      const leaseMs = now.expiresAt !== undefined ? now.expiresAt - t : undefined;
      out.push({ kind: now.shared ? 'reader-join' : 'acquired', t, lock, owner, library, count: 1, ...(leaseMs !== undefined ? { leaseMs } : {}), ...(now.shared ? { shared: true } : {}) });
    }
  }
}
