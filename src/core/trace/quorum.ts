// The trace's view of a Redlock lock across its independent primaries. Each node only knows its
// own key; a Redlock client holds the lock once a majority of nodes gave it their key, and goes on
// holding it, as far as it can know, until its validity ends (the lease from its first vote, less
// the drift allowance) or it releases. Two owners that each had a majority at once were both
// inside: an overlap, whatever each node saw on its own. The node both majorities counted says
// why: its key for the first owner ended early there, by a clock that stepped forward, a restart
// without its data (the trace was blind on it meanwhile), a delete, or a lease that ran out.
//
// An owner whose validity ended and who then acts as holder on a majority of nodes (refused
// releases or renewals: the servers had given its keys to someone else) worked without the lock:
// expired-while-held from its validity's end to its last act, and an overlap with every other
// owner's majority inside that window. One node's refusal alone is that node's finding (checker.ts).
//
// Times are made comparable across nodes: a node's server time after a clock step of it is moved
// back by the step, so one jumping node does not push its events seconds past the others'.

import { quorumOf, redlockDrift } from '../redlock-quorum.js';
import type { IssueFinding, NewFinding } from './checker.js';
import { formatMs } from '../duration.js';
import { NodeTimes } from './clock-steps.js';
import { ownerWithClient as who, type TraceClient, type TraceEvent } from './events.js';
import { traceTime } from './format.js';

/** Issues a quorum finding, new (`slot` undefined) or lengthening the one at `slot`; returns its slot. */
export type IssueQuorum = IssueFinding;
type HolderAct = 'renew' | 'release';

/** Why a node stopped counting an owner's vote before the owner let go. */
export type VoteLoss = 'clock-step' | 'restart' | 'deleted' | 'expired';

const LOSS_WORDS: Record<VoteLoss, string> = {
  'clock-step': 'its clock stepped forward and expired the key early',
  restart: 'it restarted without its data and forgot the key',
  deleted: 'the key was deleted there',
  expired: 'the key expired there',
};

interface Vote {
  /** Comparable ms the node set the key, and its server expiry (to judge a clock step against). */
  readonly at: number;
  serverExpiresAt: number | undefined;
  grantedUntil: number | undefined;
  lost: { readonly at: number; readonly why: VoteLoss } | undefined;
}

interface Holder {
  readonly owner: string;
  readonly client: TraceClient | undefined;
  readonly votes: Map<string, Vote>;
  leaseMs: number | undefined;
  /** Comparable ms it reached a majority; undefined until it does. */
  majorityAt: number | undefined;
  validUntil: number;
  releasedAt: number | undefined;
  /** Its acts as holder after its validity ended, by node, and the findings they showed. */
  stale: StaleActs | undefined;
}

interface StaleActs {
  readonly nodes: Set<string>;
  last: { t: number; act: HolderAct };
  expiredSlot: number | undefined;
  readonly overlapSlots: Map<Holder, number>;
}

/** A holder's window ends at its first release or at the end of its validity. */
const windowEnd = (h: Holder): number => Math.min(h.releasedAt ?? Number.POSITIVE_INFINITY, h.validUntil);
/** Holders kept per lock once their window ended: enough for any overlap still to be judged. */
const KEPT_ENDED = 64;

/** Each lock's owners as Redlock holders across the nodes: the overlaps of their majorities. */
export class QuorumView {
  readonly majority: number;
  private readonly times = new NodeTimes();
  /** Nodes blind now (connection lost), so a key found gone meanwhile was forgotten by a restart. */
  private readonly blind = new Set<string>();
  private readonly locks = new Map<string, Map<string, Holder>>();

  constructor(readonly nodes: readonly string[]) {
    this.majority = quorumOf(nodes.length);
  }

  /** Reads one event; issues the overlaps it completed, and the stale windows it opened or lengthened. */
  push(e: TraceEvent, issue: IssueQuorum): void {
    for (const f of this.read(e, issue)) issue(f, undefined);
  }

  private read(e: TraceEvent, issue: IssueQuorum): NewFinding[] {
    if (e.node === undefined) return [];
    const node = e.node;
    const t = this.times.comparable(node, e.t);
    switch (e.kind) {
      case 'clock-step':
        this.clockStep(node, e);
        return [];
      case 'blind':
        this.blind.add(node);
        return [];
      case 'unblind':
        this.blind.delete(node);
        return [];
      case 'acquired':
        return e.shared || e.owner === undefined ? [] : this.acquired(e, e.owner, node, t);
      case 'renewed':
        if (e.owner !== undefined) this.renewed(e, e.owner, node, t);
        return [];
      case 'released':
        if (e.owner !== undefined && e.count === 0) this.released(e.lock, e.owner, node, t);
        return [];
      case 'release-refused':
      case 'renew-refused':
        if (e.owner !== undefined) this.actedAsHolder(e.lock, e.owner, node, t, e.kind === 'renew-refused' ? 'renew' : 'release', issue);
        return [];
      case 'expired':
        if (e.owner !== undefined) this.lose(e.lock, [e.owner], node, t, this.expiryCause(node));
        return [];
      case 'deleted':
      case 'force-unlocked':
        this.lose(e.lock, e.holders ?? [], node, t, 'deleted');
        return [];
      default:
        return [];
    }
  }

  /** Every key on the node whose server expiry the step jumped past is gone from then on. */
  private clockStep(node: string, e: TraceEvent): void {
    const stepMs = e.stepMs ?? 0;
    this.times.step(node, e.t, stepMs);
    const at = this.times.comparable(node, e.t);
    for (const holders of this.locks.values()) {
      for (const h of holders.values()) {
        const vote = h.votes.get(node);
        if (vote && !vote.lost && vote.serverExpiresAt !== undefined && vote.serverExpiresAt <= e.t) vote.lost = { at, why: 'clock-step' };
      }
    }
  }

  /**
   * A key gone without a release: found missing while the node is blind (the trace checks a node
   * that comes back before it sees it again, source.ts) is a restart that lost it; else its lease ran out.
   */
  private expiryCause(node: string): VoteLoss {
    return this.blind.has(node) ? 'restart' : 'expired';
  }

  private holdersOf(lock: string): Map<string, Holder> {
    let m = this.locks.get(lock);
    if (!m) this.locks.set(lock, (m = new Map()));
    return m;
  }

  private acquired(e: TraceEvent, owner: string, node: string, t: number): NewFinding[] {
    const holders = this.holdersOf(e.lock);
    let h = holders.get(owner);
    // A new try (after a release, or once the last validity ended) starts a new count of votes.
    if (!h || ended(h, t)) {
      holders.delete(owner);
      h = { owner, client: e.client, votes: new Map(), leaseMs: e.leaseMs, majorityAt: undefined, validUntil: Number.POSITIVE_INFINITY, releasedAt: undefined, stale: undefined };
      holders.set(owner, h);
      prune(holders, t);
    }
    const grantedUntil = e.leaseMs !== undefined ? t + e.leaseMs : undefined;
    h.votes.set(node, { at: t, serverExpiresAt: e.leaseMs !== undefined ? e.t + e.leaseMs : undefined, grantedUntil, lost: undefined });
    h.leaseMs ??= e.leaseMs;
    if (h.majorityAt !== undefined || h.votes.size < this.majority) return [];
    // Nodes' events arrive interleaved: it held a majority from its majority-th vote in time, not in arrival.
    h.majorityAt = [...h.votes.values()].map((v) => v.at).sort((x, y) => x - y)[this.majority - 1]!;
    h.validUntil = validity(h);
    return this.overlaps(e.lock, holders, h);
  }

  private renewed(e: TraceEvent, owner: string, node: string, t: number): void {
    const h = this.locks.get(e.lock)?.get(owner);
    const vote = h?.votes.get(node);
    if (!h || !vote || vote.lost) return;
    vote.grantedUntil = e.leaseMs !== undefined ? t + e.leaseMs : undefined;
    vote.serverExpiresAt = e.leaseMs !== undefined ? e.t + e.leaseMs : undefined;
    // An extension counts once a majority granted it: the majority-th latest grant, less the drift.
    if (h.majorityAt !== undefined && h.releasedAt === undefined) h.validUntil = Math.max(h.validUntil, extended(h, this.majority));
  }

  private released(lock: string, owner: string, node: string, t: number): void {
    const h = this.locks.get(lock)?.get(owner);
    if (!h) return;
    // The first release is the client leaving: from then on it does not use the lock.
    h.releasedAt ??= t;
    h.votes.delete(node);
  }

  /**
   * A refused release or renewal of `owner` on `node`: after its validity, once it has acted so on
   * a majority of nodes, its window without the lock runs from its validity's end to this act; the
   * findings are issued, or issued again with the longer window (as checker.ts does for one node).
   */
  private actedAsHolder(lock: string, owner: string, node: string, t: number, act: HolderAct, issue: IssueQuorum): void {
    const holders = this.locks.get(lock);
    const h = holders?.get(owner);
    if (!holders || !h || h.majorityAt === undefined || h.releasedAt !== undefined || t <= h.validUntil) return;
    const s = (h.stale ??= { nodes: new Set(), last: { t, act }, expiredSlot: undefined, overlapSlots: new Map() });
    s.nodes.add(node);
    if (t >= s.last.t) s.last = { t, act };
    if (s.nodes.size < this.majority) return;
    s.expiredSlot = issue(this.expiredWhileHeld(lock, h, s), s.expiredSlot);
    for (const other of holders.values()) {
      if (other === h || other.majorityAt === undefined || other.majorityAt >= s.last.t || windowEnd(other) <= h.validUntil) continue;
      s.overlapSlots.set(other, issue(this.staleOverlap(lock, h, s, other), s.overlapSlots.get(other)));
    }
  }

  private expiredWhileHeld(lock: string, h: Holder, s: StaleActs): NewFinding {
    return {
      kind: 'expired-while-held',
      from: h.validUntil,
      to: s.last.t,
      owners: [h.owner],
      clients: [h.client ?? {}],
      quorum: true,
      message:
        `${who(h.owner, h.client)}'s validity on ${lock}'s ${this.nodes.length} Redlock nodes ended at ${traceTime(h.validUntil)}; ` +
        `it went on as holder on ${[...s.nodes].join(', ')} until ${traceTime(s.last.t)} (its ${s.last.act === 'renew' ? 'renewal' : 'release'} refused there): it worked without the lock for ${formatMs(s.last.t - h.validUntil)}`,
    };
  }

  /** The time `other`'s majority shares with `h`'s window without the lock. */
  private staleOverlap(lock: string, h: Holder, s: StaleActs, other: Holder): NewFinding {
    const from = Math.max(other.majorityAt!, h.validUntil);
    const to = Math.min(s.last.t, windowEnd(other));
    return {
      kind: 'overlap',
      from,
      to,
      owners: [h.owner, other.owner],
      clients: [h.client ?? {}, other.client ?? {}],
      quorum: true,
      message:
        `${who(other.owner, other.client)} held a majority of ${lock}'s Redlock nodes (${[...other.votes.keys()].join(', ')}) from ${traceTime(other.majorityAt!)} ` +
        `while ${who(h.owner, h.client)}, its validity over at ${traceTime(h.validUntil)}, still acted as holder until ${traceTime(s.last.t)}: both may have been inside for ${formatMs(to - from)}`,
    };
  }

  private lose(lock: string, owners: readonly string[], node: string, t: number, why: VoteLoss): void {
    const holders = this.locks.get(lock);
    for (const owner of owners) {
      const vote = holders?.get(owner)?.votes.get(node);
      if (vote && !vote.lost) vote.lost = { at: t, why };
    }
  }

  /**
   * `h` just reached a majority: every other owner whose window shares time with its own was
   * inside with it. Both orders are looked at: events of several nodes arrive interleaved, so the
   * earlier majority may be read second.
   */
  private overlaps(lock: string, holders: Map<string, Holder>, h: Holder): NewFinding[] {
    const out: NewFinding[] = [];
    for (const other of holders.values()) {
      if (other === h || other.majorityAt === undefined) continue;
      const [first, second] = other.majorityAt <= h.majorityAt! ? [other, h] : [h, other];
      if (windowEnd(first) > second.majorityAt!) out.push(this.overlap(lock, first, second, second.majorityAt!));
    }
    return out;
  }

  private overlap(lock: string, first: Holder, second: Holder, at: number): NewFinding {
    const to = Math.min(windowEnd(first), windowEnd(second));
    const shared = [...second.votes.keys()].filter((n) => first.votes.has(n));
    const why = shared.map((n) => {
      const lost = first.votes.get(n)!.lost;
      return `${n} counted for both${lost ? `: ${LOSS_WORDS[lost.why]} at ${traceTime(lost.at)}` : ''}`;
    });
    const nodes = (h: Holder) => [...h.votes.keys()].join(', ');
    return {
      kind: 'overlap',
      from: at,
      quorum: true,
      to,
      owners: [first.owner, second.owner],
      clients: [first.client ?? {}, second.client ?? {}],
      ...(shared.length > 0 ? { nodes: shared } : {}),
      message:
        `${who(second.owner, second.client)} got a majority of ${lock}'s ${this.nodes.length} Redlock nodes (${nodes(second)}) at ${traceTime(at)} ` +
        `while ${who(first.owner, first.client)} held one (${nodes(first)}) within its validity until ${traceTime(windowEnd(first))}: both may have been inside for ${formatMs(to - at)}` +
        (why.length > 0 ? `; ${why.join('; ')}` : ''),
    };
  }
}

/** The client's validity: from its first vote, the lease less the drift allowance. */
function validity(h: Holder): number {
  if (h.leaseMs === undefined) return Number.POSITIVE_INFINITY;
  const first = Math.min(...[...h.votes.values()].map((v) => v.at));
  return first + h.leaseMs - redlockDrift(h.leaseMs);
}

/** The validity an extension gives: until the majority-th latest grant, less the drift. */
function extended(h: Holder, majority: number): number {
  const grants = [...h.votes.values()].map((v) => v.grantedUntil ?? Number.POSITIVE_INFINITY).sort((a, b) => b - a);
  const until = grants[majority - 1];
  return until === undefined ? h.validUntil : until - redlockDrift(h.leaseMs ?? 0);
}

/** Over at `now`: released, past its validity, or (never a majority) every key it got has run out. */
function ended(h: Holder, now: number): boolean {
  if (h.releasedAt !== undefined) return true;
  if (h.majorityAt !== undefined) return h.validUntil <= now;
  return [...h.votes.values()].every((v) => v.grantedUntil !== undefined && v.grantedUntil <= now);
}

/** Drops the oldest holders that are over beyond KEPT_ENDED (insertion order is age): memory stays flat. */
function prune(holders: Map<string, Holder>, now: number): void {
  if (holders.size <= KEPT_ENDED) return;
  for (const [owner, h] of holders) {
    if (holders.size <= KEPT_ENDED) break;
    if (ended(h, now)) holders.delete(owner);
  }
}
