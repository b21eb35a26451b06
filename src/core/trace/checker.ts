// The trace's diagnosis: reads lock events (live or recorded) and finds what the scenario checker
// finds in a lab, on the server's own facts. Incremental, so a live view shows a finding the moment
// its evidence arrives; pure, so the same events always give the same findings.
//
// The central evidence is a refusal after an expiry: the owner's lease ran out (computed from the
// server's timestamps) and the owner later renewed or released as if it still held the lock. It
// worked without the lock from the expiry to its last such act seen; each other holder whose hold
// shares time with that window was inside with it. A later act lengthens the window, and its
// findings are issued again with the longer window, marked as updates.

import { isShedLockValue } from '../decode/shedlock.js';
import { formatMs } from '../duration.js';
import { clientLabel, shortOwner, type TraceClient, type TraceEvent } from './events.js';
import { traceTime } from './format.js';
import { StuckLocks, type StuckWhy } from './checker-stuck.js';
import { LOSS_HORIZON_MS, OpenLosses, type Acquisition, type HolderAct } from './open-losses.js';
import { expiredWhileHeld, overlap, who } from './stale-findings.js';
import { OwnerMap } from './owner-map.js';
import { QuorumView } from './quorum.js';
import { StarvationWatch, type IssueStarved } from './checker-starvation.js';
import { FindingStore } from './finding-store.js';
import { UNSAFE_KINDS, type FindingKind } from './finding-kinds.js';

/** What `trace --scenario` can replay: an unsafe finding, or a liveness one (a deadlock, a starvation). */
export const replayable = (f: Finding): boolean => f.unsafe || f.liveness === true;

export interface Finding {
  readonly kind: FindingKind;
  readonly lock: string;
  /** Server epoch ms. */
  readonly from: number;
  readonly to: number;
  /** The owners involved, in the order they matter (overlap: the one that had lost it first). */
  readonly owners: readonly string[];
  readonly clients: readonly TraceClient[];
  readonly unsafe: boolean;
  /** One sentence a user understands without the events. */
  readonly message: string;
  /** A Redlock overlap: the nodes both majorities counted, where the first owner's key ended early. */
  readonly nodes?: readonly string[];
  /** A liveness finding (deadlock, starvation): nobody is inside twice, but a waiter does not get in. */
  readonly liveness?: true;
  /** deadlock: the server's fact that shows the lock stuck (checker-stuck.ts). */
  readonly why?: StuckWhy;
  /**
   * Issued again with a longer window (`to`), after a later act of the same stale owner: it
   * replaces the finding of the same kind, lock, owners and `from` issued before.
   */
  readonly update?: true;
  /** Found by the quorum view of Redlock's nodes (quorum.ts): a majority's finding, not one node's. */
  readonly quorum?: true;
}

interface Hold {
  readonly since: number;
  readonly client: TraceClient | undefined;
  leaseMs: number | undefined;
  expiresAt: number | undefined;
  renewed: boolean;
  readonly shared: boolean;
  /** This hold, as the evidence a stale owner's overlap is measured against. */
  readonly acquisition: Acquisition;
}

interface LockFacts {
  readonly holds: OwnerMap<Hold>;
  readonly lost: OpenLosses;
  readonly starving: StarvationWatch;
}

/**
 * ShedLock without safeUpdate unlocks with a plain DEL: sent on the connection that took the hold,
 * it is the holder's own release, not someone else's delete. Other libraries never unlock so, and
 * a connection may serve many owners (a pool), so for them a plain DEL stays a foreign delete.
 */
function deletedByHolder(facts: LockFacts, e: TraceEvent): boolean {
  const holders = e.holders ?? [];
  const addr = e.client?.addr;
  return addr !== undefined && holders.length > 0 && holders.every((h) => isShedLockValue(h) && facts.holds.get(h)?.client?.addr === addr);
}

/** A finding as a checker part issues it: the checker adds the lock and `unsafe`. */
export type NewFinding = Omit<Finding, 'unsafe' | 'lock'>;
/** Issues `f`, new (`slot` undefined) or as an update of the finding at `slot`; returns its slot. */
export type IssueFinding<F extends NewFinding = NewFinding> = (f: F, slot: number | undefined) => number;

/** How often, in server time, the locks tracked are swept for those nothing open keeps (sweep()). */
const SWEEP_EVERY_MS = 60_000;

/** Shared and never written to: what push() returns for an event that completed nothing. */
const NO_FINDINGS: Finding[] = [];

export interface CheckerOptions {
  /**
   * The trace follows these independent Redlock primaries (node labels): each node's copy of a lock
   * is checked on its own, and the quorum view finds two owners each holding a majority at once.
   */
  readonly redlockNodes?: readonly string[] | undefined;
  /** false: `findings` stays empty, for a reader that takes them as they are issued (finding-store.ts). */
  readonly keepFindings?: boolean | undefined;
}

export class TraceChecker {
  private readonly locks = new Map<string, LockFacts>();
  private readonly quorum: QuorumView | undefined;
  private readonly store: FindingStore;
  /** The findings of the event being read: most events complete none, and get no new array for it. */
  private found: Finding[] = NO_FINDINGS;
  private readonly stuck = new StuckLocks();
  private sweptAt = Number.NEGATIVE_INFINITY;
  /** The lock of the event being read, named by the issuers below: push() makes no closure per event. */
  private lock = '';
  private readonly issueHere: IssueFinding = (f, slot) => this.issue(this.lock, f, slot);
  private readonly issueStarved: IssueStarved = (f, slot) => this.issue(this.lock, { ...f, liveness: true }, slot);
  /** Issues a new finding on the event's lock. */
  private readonly add = (f: NewFinding) => void this.issue(this.lock, f, undefined);

  constructor(opts: CheckerOptions = {}) {
    this.quorum = opts.redlockNodes ? new QuorumView(opts.redlockNodes) : undefined;
    this.store = new FindingStore(opts.keepFindings ?? true);
  }

  /** Every finding so far, each with its latest window (an update replaces its earlier issue in place). */
  get findings(): readonly Finding[] {
    return this.store.list;
  }

  /** Locks the checker holds facts about now: those with a hold, an open loss or a wait (memory tests read it). */
  get locksTracked(): number {
    return this.locks.size + this.stuck.locksTracked;
  }

  /** Reads one event; returns the findings it completed, and those it lengthened (`update: true`). */
  push(e: TraceEvent): readonly Finding[] {
    this.found = NO_FINDINGS;
    // A rate limiter's permits are taken, never held: nothing to overlap, lose or leave behind.
    if (e.library === 'rate-limiter') return NO_FINDINGS;
    this.lock = e.lock;
    this.stuck.push(e, this.issueHere);
    const add = this.add;
    this.quorum?.push(e, this.issueHere);
    // On independent primaries each node has its own copy of the lock: one set of facts per node.
    const key = this.quorum && e.node !== undefined ? `${e.node}\n${e.lock}` : e.lock;
    const facts = this.factsOf(key);
    const owner = e.owner ?? '?';
    facts.starving.before(e, facts.holds, this.issueStarved);
    switch (e.kind) {
      case 'acquired':
      case 'reader-join':
        this.acquired(facts, e, owner, add);
        break;
      case 'renewed':
        this.renewed(facts, e, owner, add);
        break;
      case 'released':
      case 'reader-leave':
        if (e.count === 0) endHold(facts, owner, e.t);
        break;
      case 'expired': {
        const hold = endHold(facts, owner, e.t);
        if (!e.shared) facts.lost.open(owner, { at: e.t, cause: 'expired', client: e.client });
        // ShedLock ends a lock by letting it expire: a job done before lockAtLeastFor moves the
        // expiry to then, which reads as a renewal followed by no more renewals.
        if (hold?.renewed && !isShedLockValue(owner))
          add({ kind: 'renewal-gap', from: e.t, to: e.t, owners: [owner], clients: [e.client ?? {}], message: `${who(owner, e.client)} renewed ${e.lock} before, but renewals stopped and its lease ran out at ${traceTime(e.t)}` });
        break;
      }
      case 'renew-refused':
      case 'release-refused':
        this.actedAsHolder(facts, e, owner, e.kind === 'renew-refused' ? 'renew' : 'release');
        break;
      case 'deleted':
      case 'force-unlocked':
        if (e.kind === 'deleted' && deletedByHolder(facts, e)) {
          add({ kind: 'unchecked-release', from: e.t, to: e.t, owners: [...(e.holders ?? [])], clients: [e.client ?? {}], message: `${who(e.holders![0]!, e.client)} released ${e.lock} with ${(e.command ?? ['DEL']).join(' ').slice(0, 60)}, which does not check who holds it (ShedLock without safeUpdate does this): had its lease run out first, it would have deleted the next holder's lock` });
        } else if ((e.holders ?? []).length > 0) {
          const how = e.kind === 'deleted' ? (e.command ?? ['DEL']).join(' ').slice(0, 60) : 'a force-unlock';
          add({ kind: 'foreign-delete', from: e.t, to: e.t, owners: [...(e.holders ?? [])], clients: [e.client ?? {}], message: `${e.lock} held by ${(e.holders ?? []).map(shortOwner).join(', ')} was removed by ${how} from ${clientLabel(e.client)} at ${traceTime(e.t)}` });
        }
        for (const [o, hold] of facts.holds) {
          hold.acquisition.end = e.t;
          if (!hold.shared) facts.lost.open(o, { at: e.t, cause: 'deleted', client: hold.client });
        }
        facts.holds.clear();
        break;
      case 'lost-in-failover':
        endHold(facts, owner, e.t);
        facts.lost.open(owner, { at: e.t, cause: 'failover', client: e.client });
        add({ kind: 'lost-in-failover', from: e.t, to: e.t, owners: [owner], clients: [e.client ?? {}], message: `${who(owner, e.client)} held ${e.lock} on the old primary; the promoted primary does not have it (${e.detail ?? 'failover'})` });
        break;
      case 'queue-leave':
        if (e.detail === 'deadline passed')
          add({ kind: 'overdue-queue-head', from: e.t, to: e.t, owners: [owner], clients: [e.client ?? {}], message: `waiter ${shortOwner(owner)} stayed at the head of ${e.lock}'s queue past its deadline until purged at ${traceTime(e.t)}` });
        break;
      default:
        break;
    }
    facts.starving.after(e, facts.holds.size === 0, this.issueStarved);
    facts.lost.prune(e.t);
    // A lock nothing keeps open is forgotten by the sweep, not at once: most are taken again soon
    // (a job's lock, a queue's), and forgetting and remaking their facts on every release cost
    // more than the rest of the checker; a day of distinct names is still bounded by a minute's.
    if (e.t - this.sweptAt >= SWEEP_EVERY_MS) this.sweep(e.t);
    return this.found;
  }

  /**
   * Forgets the locks nobody holds or waits for whose last loss, if any, is older than
   * LOSS_HORIZON_MS (its owner is not waited for any more), and the waiters that gave up: what a day of distinct lock
   * names, each lost once (expired, deleted), would otherwise keep for good.
   */
  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [key, facts] of this.locks)
      if (facts.holds.size === 0 && facts.starving.idle && facts.lost.lastOpenedAt < now - LOSS_HORIZON_MS) this.locks.delete(key);
    this.stuck.sweep(now);
  }

  /**
   * Issues a finding: a new one (`slot` undefined) is added to the list; one already issued at
   * `slot` is replaced and issued again as an update when its window grew. Returns its slot.
   */
  private issue(lock: string, f: NewFinding, slot: number | undefined): number {
    const finding: Finding = { ...f, lock, unsafe: UNSAFE_KINDS.has(f.kind) };
    if (slot === undefined) {
      this.issued(finding);
      return this.store.add(finding);
    }
    if (this.store.lengthen(slot, finding)) this.issued({ ...finding, update: true });
    return slot;
  }

  private issued(finding: Finding): void {
    if (this.found === NO_FINDINGS) this.found = [];
    this.found.push(finding);
  }

  private factsOf(lock: string): LockFacts {
    let f = this.locks.get(lock);
    if (!f) this.locks.set(lock, (f = { holds: new OwnerMap(), lost: new OpenLosses(), starving: new StarvationWatch() }));
    return f;
  }

  private acquired(facts: LockFacts, e: TraceEvent, owner: string, add: (f: NewFinding) => void): void {
    const loss = facts.lost.get(owner);
    if (e.overwrite) {
      // Written over the key by an owner that had already acted as holder without the lock: its last such act.
      if (loss?.window) this.actedAsHolder(facts, e, owner, 'write');
      const others = (e.holders ?? []).filter((h) => h !== owner && facts.holds.has(h));
      if (loss || others.length > 0) {
        const why = loss ? `after its lease ran out at ${traceTime(loss.at)}` : `over ${others.map(shortOwner).join(', ')}'s hold`;
        add({ kind: 'silent-reacquire', from: loss?.at ?? e.t, to: e.t, owners: [owner, ...others], clients: [e.client ?? {}], message: `${who(owner, e.client)} set ${e.lock} again without NX ${why}` });
      }
      for (const o of others) endHold(facts, o, e.t);
    }
    facts.lost.close(owner);
    const prev = facts.holds.get(owner);
    const expiresAt = e.leaseMs !== undefined ? e.t + e.leaseMs : undefined;
    // A re-entry goes on with the hold it adds to; a new hold is evidence for the losses open now.
    const acquisition = prev?.acquisition ?? { owner, t: e.t, client: e.client, end: undefined };
    facts.holds.set(owner, { since: prev?.since ?? e.t, client: e.client, leaseMs: e.leaseMs, expiresAt, renewed: prev?.renewed ?? false, shared: e.shared === true, acquisition });
    if (!e.shared && !prev) facts.lost.acquired(acquisition);
    if (e.leaseMs === undefined && e.library !== 'semaphore')
      add({ kind: 'no-ttl', from: e.t, to: e.t, owners: [owner], clients: [e.client ?? {}], message: `${who(owner, e.client)} holds ${e.lock} with no TTL: if it dies, the lock is never freed` });
  }

  private renewed(facts: LockFacts, e: TraceEvent, owner: string, add: (f: NewFinding) => void): void {
    const hold = facts.holds.get(owner);
    if (!hold) return;
    if (hold.expiresAt !== undefined && hold.leaseMs !== undefined) {
      const left = hold.expiresAt - e.t;
      if (left >= 0 && left < hold.leaseMs / 3)
        add({ kind: 'renewal-gap', from: e.t, to: hold.expiresAt, owners: [owner], clients: [e.client ?? {}], message: `${who(owner, e.client)} renewed ${e.lock} with ${formatMs(left)} left of a ${formatMs(hold.leaseMs)} lease (less than a third)` });
    }
    hold.renewed = true;
    if (e.leaseMs === undefined) {
      hold.expiresAt = hold.leaseMs = undefined;
      add({ kind: 'no-ttl', from: e.t, to: e.t, owners: [owner], clients: [e.client ?? {}], message: `${who(owner, e.client)} removed the TTL of ${e.lock}: if it dies, the lock is never freed` });
      return;
    }
    hold.leaseMs = e.leaseMs;
    hold.expiresAt = e.t + e.leaseMs;
  }

  /**
   * An owner acting as holder (a refused renewal or release, a write over the key): after its loss,
   * the end of its window so far. Its findings are issued, or issued again with the longer window.
   */
  private actedAsHolder(facts: LockFacts, e: TraceEvent, owner: string, act: HolderAct): void {
    const loss = facts.lost.get(owner);
    if (!loss) return;
    const client = e.client ?? loss.client;
    const before = loss.window?.last.t;
    const w = (loss.window ??= { first: { t: e.t, act }, last: { t: e.t, act }, client, expiredFinding: undefined, openOverlaps: new Map() });
    if (e.t < w.last.t) return; // an act older than the last one seen lengthens nothing
    w.last = { t: e.t, act };
    w.client = client;
    if (loss.cause === 'expired') w.expiredFinding = this.issue(e.lock, expiredWhileHeld(e.lock, owner, loss, w), w.expiredFinding);
    // Holds that may still share more time with the window, then those begun since the last act.
    const newHolds = before === undefined ? facts.lost.acquiredBetween(loss.at, e.t) : facts.lost.acquiredAfter(before, e.t);
    for (const other of [...w.openOverlaps.keys(), ...newHolds]) {
      if (other.owner === owner) continue;
      const slot = this.issue(e.lock, overlap(e.lock, owner, w, other), w.openOverlaps.get(other));
      if (other.end !== undefined && other.end <= e.t) w.openOverlaps.delete(other);
      else w.openOverlaps.set(other, slot);
    }
  }
}

/** Ends `owner`'s hold at `t` (its acquisition's end, for overlaps measured later); returns it. */
function endHold(facts: LockFacts, owner: string, t: number): Hold | undefined {
  const hold = facts.holds.get(owner);
  if (hold) hold.acquisition.end = t;
  facts.holds.delete(owner);
  return hold;
}

/** Every finding of a whole event list (a recording), in the order their evidence arrived. */
export function checkEvents(events: readonly TraceEvent[], opts: CheckerOptions = {}): readonly Finding[] {
  const checker = new TraceChecker(opts);
  for (const e of events) checker.push(e);
  return checker.findings;
}
