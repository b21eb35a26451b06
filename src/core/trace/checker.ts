// The trace's diagnosis: reads lock events (live or recorded) and finds what the scenario checker
// finds in a lab, on the server's own facts. Incremental, so a live view shows a finding the moment
// its evidence arrives; pure, so the same events always give the same findings.
//
// The central evidence is a refusal after an expiry: the owner's lease ran out (computed from the
// server's timestamps) and the owner later renewed or released as if it still held the lock. It
// worked without the lock at least from the expiry to that refusal; anyone who acquired inside
// that window was inside with it.

import { clientLabel, shortOwner, type TraceClient, type TraceEvent } from './events.js';
import { traceTime } from './format.js';
import { OpenLosses } from './open-losses.js';

export const FINDING_KINDS = [
  'expired-while-held',
  'overlap',
  'silent-reacquire',
  'foreign-delete',
  'lost-in-failover',
  'renewal-gap',
  'no-ttl',
  'overdue-queue-head',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** Kinds where two holders may have been inside at once or a holder lost its lock: exit 7. */
export const UNSAFE_KINDS: ReadonlySet<FindingKind> = new Set(['expired-while-held', 'overlap', 'silent-reacquire', 'foreign-delete', 'lost-in-failover']);

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
}

interface Hold {
  readonly since: number;
  readonly client: TraceClient | undefined;
  leaseMs: number | undefined;
  expiresAt: number | undefined;
  renewed: boolean;
  readonly shared: boolean;
}

interface LockFacts {
  readonly holds: Map<string, Hold>;
  readonly lost: OpenLosses;
}

/** `6f1c2a3b…:1 (worker-1@127.0.0.1:5001)`: short enough for one line of a finding. */
const who = (owner: string, client: TraceClient | undefined) => `${shortOwner(owner)} (${client?.name && client.addr ? `${client.name}@${client.addr}` : clientLabel(client)})`;
const ms = (n: number) => `${Math.round(n)} ms`;

export class TraceChecker {
  private readonly locks = new Map<string, LockFacts>();
  readonly findings: Finding[] = [];

  /** Reads one event; returns the findings it completed. */
  push(e: TraceEvent): Finding[] {
    const found: Finding[] = [];
    const add = (f: Omit<Finding, 'unsafe' | 'lock'>) => found.push({ ...f, lock: e.lock, unsafe: UNSAFE_KINDS.has(f.kind) });
    const facts = this.factsOf(e.lock);
    const owner = e.owner ?? '?';
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
        if (e.count === 0) facts.holds.delete(owner);
        break;
      case 'expired': {
        const hold = facts.holds.get(owner);
        facts.holds.delete(owner);
        if (!e.shared) facts.lost.open(owner, { at: e.t, cause: 'expired', client: e.client });
        if (hold?.renewed)
          add({ kind: 'renewal-gap', from: e.t, to: e.t, owners: [owner], clients: [e.client ?? {}], message: `${who(owner, e.client)} renewed ${e.lock} before, but renewals stopped and its lease ran out at ${traceTime(e.t)}` });
        break;
      }
      case 'renew-refused':
      case 'release-refused':
        this.refused(facts, e, owner, add);
        break;
      case 'deleted':
      case 'force-unlocked':
        if ((e.holders ?? []).length > 0) {
          const how = e.kind === 'deleted' ? (e.command ?? ['DEL']).join(' ').slice(0, 60) : 'a force-unlock';
          add({ kind: 'foreign-delete', from: e.t, to: e.t, owners: [...(e.holders ?? [])], clients: [e.client ?? {}], message: `${e.lock} held by ${(e.holders ?? []).map(shortOwner).join(', ')} was removed by ${how} from ${clientLabel(e.client)} at ${traceTime(e.t)}` });
        }
        for (const [o, hold] of facts.holds) if (!hold.shared) facts.lost.open(o, { at: e.t, cause: 'deleted', client: hold.client });
        facts.holds.clear();
        break;
      case 'lost-in-failover':
        facts.holds.delete(owner);
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
    facts.lost.prune(e.t);
    this.findings.push(...found);
    return found;
  }

  private factsOf(lock: string): LockFacts {
    let f = this.locks.get(lock);
    if (!f) this.locks.set(lock, (f = { holds: new Map(), lost: new OpenLosses() }));
    return f;
  }

  private acquired(facts: LockFacts, e: TraceEvent, owner: string, add: (f: Omit<Finding, 'unsafe' | 'lock'>) => void): void {
    const loss = facts.lost.get(owner);
    if (e.overwrite) {
      const others = (e.holders ?? []).filter((h) => h !== owner && facts.holds.has(h));
      if (loss || others.length > 0) {
        const why = loss ? `after its lease ran out at ${traceTime(loss.at)}` : `over ${others.map(shortOwner).join(', ')}'s hold`;
        add({ kind: 'silent-reacquire', from: loss?.at ?? e.t, to: e.t, owners: [owner, ...others], clients: [e.client ?? {}], message: `${who(owner, e.client)} set ${e.lock} again without NX ${why}` });
      }
      for (const o of others) facts.holds.delete(o);
    }
    facts.lost.close(owner);
    const prev = facts.holds.get(owner);
    const expiresAt = e.leaseMs !== undefined ? e.t + e.leaseMs : undefined;
    facts.holds.set(owner, { since: prev?.since ?? e.t, client: e.client, leaseMs: e.leaseMs, expiresAt, renewed: prev?.renewed ?? false, shared: e.shared === true });
    if (!e.shared) facts.lost.acquired({ owner, t: e.t, client: e.client });
    if (e.leaseMs === undefined && e.library !== 'semaphore')
      add({ kind: 'no-ttl', from: e.t, to: e.t, owners: [owner], clients: [e.client ?? {}], message: `${who(owner, e.client)} holds ${e.lock} with no TTL: if it dies, the lock is never freed` });
  }

  private renewed(facts: LockFacts, e: TraceEvent, owner: string, add: (f: Omit<Finding, 'unsafe' | 'lock'>) => void): void {
    const hold = facts.holds.get(owner);
    if (!hold) return;
    if (hold.expiresAt !== undefined && hold.leaseMs !== undefined) {
      const left = hold.expiresAt - e.t;
      if (left >= 0 && left < hold.leaseMs / 3)
        add({ kind: 'renewal-gap', from: e.t, to: hold.expiresAt, owners: [owner], clients: [e.client ?? {}], message: `${who(owner, e.client)} renewed ${e.lock} with ${ms(left)} left of a ${ms(hold.leaseMs)} lease (less than a third)` });
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

  private refused(facts: LockFacts, e: TraceEvent, owner: string, add: (f: Omit<Finding, 'unsafe' | 'lock'>) => void): void {
    const loss = facts.lost.get(owner);
    if (!loss) return;
    facts.lost.close(owner);
    const action = e.kind === 'renew-refused' ? 'renew' : 'release';
    if (loss.cause === 'expired') {
      add({
        kind: 'expired-while-held',
        from: loss.at,
        to: e.t,
        owners: [owner],
        clients: [e.client ?? loss.client ?? {}],
        message: `${who(owner, e.client ?? loss.client)}'s lease on ${e.lock} ran out at ${traceTime(loss.at)}; it tried to ${action} at ${traceTime(e.t)} and was refused: it worked without the lock for ${ms(e.t - loss.at)}`,
      });
    }
    for (const other of facts.lost.acquiredBetween(loss.at, e.t)) {
      if (other.owner === owner) continue;
      add({
        kind: 'overlap',
        from: other.t,
        to: e.t,
        owners: [owner, other.owner],
        clients: [e.client ?? loss.client ?? {}, other.client ?? {}],
        message: `${who(other.owner, other.client)} acquired ${e.lock} at ${traceTime(other.t)} while ${who(owner, e.client ?? loss.client)} still acted as its holder until ${traceTime(e.t)}: both may have been inside for ${ms(e.t - other.t)}`,
      });
    }
  }
}

/** Every finding of a whole event list (a recording), in the order their evidence arrived. */
export function checkEvents(events: readonly TraceEvent[]): Finding[] {
  const checker = new TraceChecker();
  for (const e of events) checker.push(e);
  return checker.findings;
}
