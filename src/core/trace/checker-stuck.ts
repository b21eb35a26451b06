// Stuck locks: a liveness finding (`deadlock`, the scenario checker's word), never a safety one.
// A waiter refused for long is ordinary contention; the finding needs the server's own facts that
// nobody alive will ever let it in, each a `why`:
//   no-ttl           the holder set no TTL and has sent nothing since (it died holding it);
//   count-left       the holder's last release left its reentrant hold count above 0, and since
//                    then it has only renewed (a watchdog keeps a lock its code believes free);
//   dead-queue-head  a fair lock is free, but the head of its queue has sent nothing: the waiters
//                    behind it wait for a dead client's deadline;
//   orphan-hold      every holder listed in the refusal is past the lease it set itself and never
//                    renewed it (someone else's renewal keeps a dead reader in the lock);
//   data-key         nobody holds it, but a plain SET wrote the key: the lock is named after
//                    application data, which no release will ever remove.
// All but orphan-hold need the waiter kept out for longer than STUCK_AFTER_MS (the bound each finding
// states); an orphan's evidence is its overrun itself, beyond ORPHAN_SLACK_MS of the trace's rounding.

import type { IssueFinding, NewFinding } from './checker.js';
import { formatMs } from '../duration.js';
import { ownerWithClient as who, type TraceClient, type TraceEvent } from './events.js';
import { traceTime } from './format.js';
import { OwnerMap } from './owner-map.js';

export const STUCK_WHYS = ['no-ttl', 'count-left', 'dead-queue-head', 'orphan-hold', 'data-key'] as const;
export type StuckWhy = (typeof STUCK_WHYS)[number];

/** How long a waiter must be kept out, with the holder's (or queue head's) silence, before it is called a deadlock. */
export const STUCK_AFTER_MS = 1000;
/** A hold this much past its owner's own lease is not the trace's rounding of the server's timestamps. */
export const ORPHAN_SLACK_MS = 100;
/** A waiter not refused for this long gave up (node-redlock draws a new token per try): forgotten. */
const GAVE_UP_MS = 60_000;

/** What checker-stuck issues: a `deadlock` finding without the fields the checker adds. */
// `owners`: the stuck holder (or dead queue head) first, then the waiter kept out; only the waiter
// for a data key.
export type StuckFinding = NewFinding & { readonly kind: 'deadlock'; readonly why: StuckWhy; readonly liveness: true };

export type IssueStuck = IssueFinding<StuckFinding>;

interface HoldSeen {
  readonly client: TraceClient | undefined;
  /** Server ms its own lease runs out (its acquisition or renewal + lease); undefined: no TTL. */
  ownLeaseEnd: number | undefined;
  /** Its last release that left the count above 0, while it has done nothing but renew since. */
  countLeftAt: number | undefined;
  count: number;
}

interface Episode {
  readonly slot: number;
  readonly finding: StuckFinding;
}

interface Waiting {
  /** Its first refusal since it last held. */
  readonly since: number;
  /** Its latest refusal. */
  readonly last: number;
}

interface Act {
  t: number;
  client: TraceClient | undefined;
}

interface LockSeen {
  readonly holds: OwnerMap<HoldSeen>;
  /** Fair lock waiters in queue order (queue-join), until they leave or take the lock. */
  readonly queue: string[];
  /** Each refused owner's wait, oldest latest refusal first (so the ones that gave up are dropped from the front). */
  readonly waiting: Map<string, Waiting>;
  /** The last act (anything sent) of each holder, queued waiter and waiter: forgotten when it is none of those. */
  readonly acts: OwnerMap<Act>;
  /** Server ms the last hold ended: a lock free since then, or the last live holder's leave. */
  lastEnd: number;
  readonly episodes: Map<string, Episode>;
}


/** Incremental: reads every event of the trace in order and issues `deadlock` findings through `issue`. */
export class StuckLocks {
  private readonly locks = new Map<string, LockSeen>();

  /** Locks with a holder, a waiter, a queue or an open episode: the others are forgotten. */
  get locksTracked(): number {
    return this.locks.size;
  }

  push(e: TraceEvent, issue: IssueStuck): void {
    const owner = e.owner;
    // A semaphore's refusal means no permit is left, not that anyone is stuck.
    if (owner === undefined || e.library === 'semaphore') return;
    const lock = this.lockOf(e.lock);
    // An idle lock is forgotten by the sweep (the checker's, once a minute), not at once: most are
    // taken again soon, and remaking their state on every release cost more than reading it.
    this.read(lock, e, owner, issue);
  }

  /** Drops, on every lock, the waiters that gave up (a lock nobody is refused again keeps none), and the locks left idle. */
  sweep(now: number): void {
    for (const [name, lock] of this.locks) {
      dropGaveUp(lock, now);
      if (idle(lock)) this.locks.delete(name);
    }
  }

  private read(lock: LockSeen, e: TraceEvent, owner: string, issue: IssueStuck): void {
    // An expiry is the server's doing, not the owner's act; a renewal is an act that keeps a count stuck.
    if (e.kind !== 'expired') noteAct(lock, owner, e);
    const hold = lock.holds.get(owner);
    switch (e.kind) {
      case 'acquired':
      case 'reader-join': {
        const ownLeaseEnd = e.leaseMs === undefined ? undefined : e.t + e.leaseMs;
        lock.holds.set(owner, { client: e.client, ownLeaseEnd, countLeftAt: undefined, count: e.count ?? (hold?.count ?? 0) + 1 });
        lock.waiting.delete(owner);
        this.closeEpisodes(lock, e, issue);
        // A fair lock is taken by the head of its queue: whoever was ahead has been purged.
        const at = lock.queue.indexOf(owner);
        if (at >= 0) for (const purged of lock.queue.splice(0, at + 1)) forgetIdle(lock, purged);
        break;
      }
      case 'renewed':
        if (hold) hold.ownLeaseEnd = e.leaseMs === undefined ? undefined : e.t + e.leaseMs;
        break;
      case 'released':
      case 'reader-leave':
        if (!hold) break;
        if ((e.count ?? 0) > 0) {
          hold.count = e.count ?? hold.count;
          hold.countLeftAt = e.t;
        } else this.endHold(lock, owner, e.t);
        break;
      case 'expired':
        // Its own lease ran out long before the server let its hold go, with a waiter kept out.
        // A waiter refused after that lease's end (not one that gave up before) was kept out by it.
        if (hold?.ownLeaseEnd !== undefined && lock.holds.size === 1) {
          const leaseEnd = hold.ownLeaseEnd;
          const waiter = [...lock.waiting].find(([w, wait]) => w !== owner && wait.last > leaseEnd);
          if (waiter) this.orphans(lock, { ...e, owner: waiter[0], client: lock.acts.get(waiter[0])?.client ?? {} }, waiter[0], waiter[1].since, [owner], issue);
        }
        this.closeEpisodes(lock, e, issue);
        this.endHold(lock, owner, e.t);
        break;
      case 'lost-in-failover':
        this.closeEpisodes(lock, e, issue);
        this.endHold(lock, owner, e.t);
        break;
      case 'deleted':
      case 'force-unlocked':
        this.closeEpisodes(lock, e, issue);
        for (const o of [...lock.holds.keys()]) this.endHold(lock, o, e.t);
        break;
      case 'queue-join':
        if (!lock.queue.includes(owner)) lock.queue.push(owner);
        break;
      case 'queue-leave': {
        const at = lock.queue.indexOf(owner);
        if (at >= 0) lock.queue.splice(at, 1);
        forgetIdle(lock, owner);
        break;
      }
      case 'refused':
        this.waits(lock, owner, e.t);
        this.refused(lock, e, owner, issue);
        break;
      default:
        // Any other act of a holder (a refused renewal, a raw write) is not a bare renewal.
        if (hold) hold.countLeftAt = undefined;
        break;
    }
  }

  private lockOf(name: string): LockSeen {
    let l = this.locks.get(name);
    if (!l) this.locks.set(name, (l = { holds: new OwnerMap(), queue: [], waiting: new Map(), acts: new OwnerMap(), lastEnd: Number.NEGATIVE_INFINITY, episodes: new Map() }));
    return l;
  }

  private endHold(lock: LockSeen, owner: string, t: number): void {
    if (lock.holds.delete(owner)) lock.lastEnd = t;
    forgetIdle(lock, owner);
  }

  /** A refusal: the owner's wait goes on (moved to the back), and waiters silent since long ago gave up. */
  private waits(lock: LockSeen, owner: string, t: number): void {
    const had = lock.waiting.get(owner);
    const since = had && had.last >= t - GAVE_UP_MS ? had.since : t;
    lock.waiting.delete(owner);
    lock.waiting.set(owner, { since, last: t });
    dropGaveUp(lock, t);
  }

  /** A waiter refused: the evidence, if any, that what keeps it out will never let it in. */
  private refused(lock: LockSeen, e: TraceEvent, waiter: string, issue: IssueStuck): void {
    const since = lock.waiting.get(waiter)!.since;
    const listed = (e.holders ?? []).filter((h) => h !== waiter);
    if (listed.length === 0 && e.data) {
      const from = Math.max(since, lock.lastEnd);
      if (e.t - from < STUCK_AFTER_MS) return;
      const message = `${who(waiter, e.client)} was refused ${e.lock} for ${formatMs(e.t - from)} (bound ${formatMs(STUCK_AFTER_MS)}) although no lock holds it: a plain SET wrote the key, so the lock is named after application data and nobody will ever get it`;
      this.open(lock, e, 'data-key', undefined, undefined, from, message, issue);
      return;
    }
    if (listed.length === 0) {
      const head = lock.queue.find((o) => o !== waiter);
      if (head === undefined || lock.holds.size > 0 || lock.queue[0] === waiter) return;
      const headAct = lock.acts.get(head);
      const from = Math.max(since, lock.lastEnd, headAct?.t ?? Number.NEGATIVE_INFINITY);
      if (e.t - from < STUCK_AFTER_MS) return;
      const free = Number.isFinite(lock.lastEnd) ? `has been free since ${traceTime(lock.lastEnd)}` : 'is free';
      const message = `${e.lock} ${free}, but ${who(waiter, e.client)} waited behind the head of its fair queue, ${who(head, headAct?.client)}, which has sent nothing since ${headAct ? traceTime(headAct.t) : 'before the trace began'}: the queue waits for a dead waiter's deadline (kept out ${formatMs(e.t - from)}, bound ${formatMs(STUCK_AFTER_MS)})`;
      this.open(lock, e, 'dead-queue-head', head, headAct?.client, from, message, issue);
      return;
    }
    if (listed.length !== 1) return this.orphans(lock, e, waiter, since, listed, issue);
    const holder = listed[0]!;
    const hold = lock.holds.get(holder);
    if (!hold) return;
    const act = lock.acts.get(holder);
    if (hold.ownLeaseEnd === undefined && hold.countLeftAt === undefined) {
      const from = Math.max(since, act?.t ?? Number.NEGATIVE_INFINITY);
      if (e.t - from < STUCK_AFTER_MS) return;
      const message = `${who(holder, hold.client)} holds ${e.lock} with no TTL and has sent nothing since ${act ? traceTime(act.t) : 'it took it'}, while ${who(waiter, e.client)} was refused for ${formatMs(e.t - from)} (bound ${formatMs(STUCK_AFTER_MS)}): a holder that died keeps it forever`;
      this.open(lock, e, 'no-ttl', holder, hold.client, from, message, issue);
      return;
    }
    if (hold.countLeftAt !== undefined) {
      const from = Math.max(since, hold.countLeftAt);
      if (e.t - from < STUCK_AFTER_MS) return;
      const message = `${who(holder, hold.client)}'s last release of ${e.lock} at ${traceTime(hold.countLeftAt)} left its hold count at ${hold.count}, and since then it has only renewed, while ${who(waiter, e.client)} was refused for ${formatMs(e.t - from)} (bound ${formatMs(STUCK_AFTER_MS)}): an unlock missing or an acquire counted twice keeps it held`;
      this.open(lock, e, 'count-left', holder, hold.client, from, message, issue);
      return;
    }
    this.orphans(lock, e, waiter, since, listed, issue);
  }

  /** Every holder listed is past the lease it set itself, and none renewed: the server keeps dead holds. */
  private orphans(lock: LockSeen, e: TraceEvent, waiter: string, since: number, listed: readonly string[], issue: IssueStuck): void {
    const ends = listed.map((h) => lock.holds.get(h)?.ownLeaseEnd);
    if (ends.some((end) => end === undefined || e.t - end <= ORPHAN_SLACK_MS)) return;
    const holder = listed[0]!;
    const hold = lock.holds.get(holder)!;
    const leaseEnd = Math.max(...(ends as number[]));
    const from = Math.max(since, leaseEnd, lock.lastEnd);
    const message = `${who(holder, hold.client)} still holds ${e.lock}, ${formatMs(e.t - leaseEnd)} after the lease it set itself ran out at ${traceTime(leaseEnd)} without its renewal, and ${who(waiter, e.client)} was refused for it: a dead holder's hold kept alive by someone else's renewal`;
    this.open(lock, e, 'orphan-hold', holder, hold.client, from, message, issue);
  }

  /** Issues the episode's finding, or issues it again when its window grew by another bound. */
  private open(lock: LockSeen, e: TraceEvent, why: StuckWhy, stuck: string | undefined, stuckClient: TraceClient | undefined, from: number, message: string, issue: IssueStuck): void {
    const key = `${why}\n${stuck ?? ''}`;
    const had = lock.episodes.get(key);
    if (had && e.t - had.finding.to < STUCK_AFTER_MS) return;
    const finding: StuckFinding = { kind: 'deadlock', why, liveness: true, from: had?.finding.from ?? from, to: e.t, owners: stuck === undefined ? [e.owner!] : [stuck, e.owner!], clients: stuck === undefined ? [e.client ?? {}] : [stuckClient ?? {}, e.client ?? {}], message };
    lock.episodes.set(key, { slot: issue(finding, had?.slot), finding });
  }

  /**
   * The lock changed hands (taken, expired, deleted): each open episode ends here, its window
   * lengthened to this moment, the wait it describes being over.
   */
  private closeEpisodes(lock: LockSeen, e: TraceEvent, issue: IssueStuck): void {
    if (lock.episodes.size === 0) return; // the common case: no iterator made per acquisition
    for (const { slot, finding } of lock.episodes.values()) if (e.t > finding.to) issue({ ...finding, to: e.t }, slot);
    lock.episodes.clear();
  }
}

/** Waiters not refused since GAVE_UP_MS before `now` gave up: forgotten, oldest first. */
function dropGaveUp(lock: LockSeen, now: number): void {
  for (const [o, wait] of lock.waiting) {
    if (wait.last >= now - GAVE_UP_MS) break;
    lock.waiting.delete(o);
    forgetIdle(lock, o);
  }
}

/**
 * Nobody holds, waits or queues: a lock seen later starts afresh, so a day of distinct names costs
 * nothing. Only when it was last free is lost, which no later finding's window depends on: each
 * starts at the waiter's first refusal after that (or a queue head's act) at the earliest.
 */
const idle = (lock: LockSeen): boolean => lock.holds.size === 0 && lock.waiting.size === 0 && lock.queue.length === 0 && lock.episodes.size === 0 && lock.acts.size === 0;

/** Notes `e` as the owner's last act: its entry is updated in place (an owner acts several times per hold). */
function noteAct(lock: LockSeen, owner: string, e: TraceEvent): void {
  const act = lock.acts.get(owner);
  if (act === undefined) lock.acts.set(owner, { t: e.t, client: e.client });
  else (act.t = e.t), (act.client = e.client);
}

/** Forgets the last act of an owner that neither holds, queues for nor waits for the lock. */
function forgetIdle(lock: LockSeen, owner: string): void {
  if (!lock.holds.has(owner) && !lock.waiting.has(owner) && !lock.queue.includes(owner)) lock.acts.delete(owner);
}
