// Resolves each lock's holders and waiters to connections from what `who` read: the MONITOR sample
// (decoded as `trace` decodes it), the owner directory earlier traces left, the owner label a
// library stores, and CLIENT LIST for what each connection is now. Pure: no I/O.

import type { LockView } from '../lock-view.js';
import type { TraceEvent } from '../trace/events.js';
import { blockedByChains } from './chains.js';
import type { ServerConnection } from './connections.js';
import type { Liveness, RememberedWriter, WhoConnection, WhoFacts, WhoHolder, WhoLock, WhoParty, WhoReport, WhoSubscribers } from './model.js';
import { ownerLabel } from './owner-label.js';
import { isLockChannel } from './channels.js';
import { wroteAs } from './writers.js';

/** Sample events that say a connection wrote this owner on this lock while trying to get it. */
const TRYING: ReadonlySet<TraceEvent['kind']> = new Set(['attempt', 'refused', 'queue-join']);
/** Sample events that show a connection acting as the holder. */
const HOLDING: ReadonlySet<TraceEvent['kind']> = new Set(['acquired', 'renewed', 'reader-join']);

const REDISSON_KINDS: ReadonlySet<string> = new Set(['reentrant', 'fair', 'rw', 'fenced', 'semaphore', 'expirable-semaphore', 'latch']);

/** A connection as a sample event, the owner directory or CLIENT LIST names it. */
interface SeenClient {
  readonly addr: string;
  readonly name?: string | undefined;
}

/** The context one resolution needs: who's facts indexed by lock and by address. */
class Facts {
  private readonly byAddr: ReadonlyMap<string, ServerConnection>;
  private readonly own: ReadonlySet<string>;

  constructor(readonly facts: WhoFacts) {
    this.byAddr = new Map((facts.connections ?? []).map((c) => [c.addr, c]));
    this.own = new Set(facts.own ?? []);
  }

  eventsOn(lock: string): TraceEvent[] {
    return this.facts.events.filter((e) => e.lock === lock && e.client?.addr !== undefined && !this.own.has(e.client.addr));
  }

  /** A connection as CLIENT LIST describes it now; `gone` when it is no longer listed. */
  connection(client: SeenClient): WhoConnection {
    if (!this.facts.connections) return { addr: client.addr, name: client.name };
    const now = this.byAddr.get(client.addr);
    if (!now) return { addr: client.addr, name: client.name, gone: true };
    const { addr, name, libName, libVer, ageMs, idleMs } = now;
    return { addr, name: name ?? client.name, libName, libVer, ageMs, idleMs, gone: false };
  }

  remembered(key: string, owner: string): RememberedWriter | undefined {
    const entries = this.facts.remembered.filter((r) => r.key === key && r.owner === owner);
    return entries.sort((a, b) => b.at - a.at)[0];
  }

  subscribed(): ServerConnection[] {
    return (this.facts.connections ?? []).filter((c) => c.subscriptions > 0 && !this.own.has(c.addr));
  }
}

const withAddr = (e: TraceEvent): SeenClient => e.client as SeenClient;

/** Ties an owner to a connection: the sample first (`prefer` kinds, newest last), then the directory, then a label. */
function resolveParty(f: Facts, view: LockView, owner: string, prefer: ReadonlySet<TraceEvent['kind']>): WhoParty {
  const mine = f.eventsOn(view.key).filter((e) => e.owner === owner);
  const seen = mine.filter((e) => prefer.has(e.kind)).at(-1) ?? mine.at(-1);
  if (seen) return { owner, connection: f.connection(withAddr(seen)), via: 'monitor' };
  const memory = f.remembered(view.key, owner);
  if (memory) return { owner, connection: f.connection(memory), via: 'trace-memory' };
  const label = ownerLabel(owner);
  return label !== undefined ? { owner, via: 'owner-label', label } : { owner };
}

/** The holder's own connection: the one seen acquiring (the sample, else the directory), else one seen renewing. */
function resolveHolder(f: Facts, view: LockView, owner: string): WhoHolder {
  const events = f.eventsOn(view.key).filter((e) => e.owner === owner);
  const acquiredHere = events.filter((e) => e.kind !== 'queue-join' && wroteAs(e) === 'took').at(-1);
  const memory = f.remembered(view.key, owner);
  const party: WhoParty = acquiredHere
    ? { owner, connection: f.connection(withAddr(acquiredHere)), via: 'monitor' }
    : memory
      ? { owner, connection: f.connection(memory), via: 'trace-memory' }
      : resolveParty(f, view, owner, HOLDING);
  const renewers = unique(events.filter((e) => wroteAs(e) === 'kept').map((e) => f.connection(withAddr(e))));
  return { ...party, renewers, liveness: liveness(f, view, party, renewers) };
}

function liveness(f: Facts, view: LockView, party: WhoParty, renewers: readonly WhoConnection[]): Liveness {
  if (!party.connection) return { state: 'unresolved' };
  if (!f.facts.connections) return { state: 'unknown' };
  if (!party.connection.gone) return { state: 'alive' };
  const freesInMs = view.ttlMs >= 0 ? view.ttlMs : null;
  const renewer = renewers.find((r) => r.gone === false && r.addr !== party.connection!.addr);
  return renewer ? { state: 'zombie-renewer', renewer, freesInMs } : { state: 'gone', freesInMs };
}

function unique(conns: readonly WhoConnection[]): WhoConnection[] {
  const seen = new Map<string, WhoConnection>();
  for (const c of conns) seen.set(c.addr, c);
  return [...seen.values()];
}

/** Owners that hold the lock now: holders, readers, a token lock's value. */
export function holderOwners(view: LockView): string[] {
  return [...view.holders.map((h) => h.owner), ...(view.readers ?? []).map((r) => r.owner)];
}

/**
 * Waiters: the fair queue in order, then every other connection whose newest sample event on the
 * lock was an attempt that did not get it (a polling client such as node-redlock is known no other way).
 */
function resolveWaiters(f: Facts, view: LockView, holders: readonly string[]): WhoParty[] {
  const queued = (view.queue ?? []).map((q) => ({ ...resolveParty(f, view, q.owner, TRYING), position: q.position }));
  const known = new Set([...holders, ...queued.map((q) => q.owner)]);
  const newest = new Map<string, TraceEvent>();
  for (const e of f.eventsOn(view.key)) newest.set(`${e.client!.addr}\n${e.owner ?? ''}`, e);
  const polling = [...newest.values()]
    .filter((e) => TRYING.has(e.kind) && e.owner !== undefined && !known.has(e.owner))
    .map((e) => ({ owner: e.owner!, connection: f.connection(withAddr(e)), via: 'monitor' as const }));
  return [...queued, ...polling];
}

function subscribers(f: Facts, view: LockView): WhoSubscribers {
  if (view.waiters === 0) return { count: 0, connections: [], exact: true };
  const candidates = f.subscribed().map((c) => f.connection(c));
  // CLIENT LIST counts a connection's subscriptions but never names them: only when every channel
  // with subscribers on the server is one of this lock's are the subscribed connections its own.
  const channels = f.facts.channels;
  const exact = channels !== undefined && channels.length > 0 && channels.every((c) => isLockChannel(view.key, c));
  return { count: view.waiters, connections: candidates, exact };
}

function libraryOf(view: LockView): string {
  if (view.library !== undefined) return view.library;
  return REDISSON_KINDS.has(view.kind) ? 'redisson' : view.kind === 'rs-semaphore' ? 'redis-semaphore' : 'unknown';
}

function resolveLock(f: Facts, view: LockView): WhoLock {
  const owners = holderOwners(view);
  return {
    key: view.key,
    kind: view.kind,
    library: libraryOf(view),
    ttlMs: view.ttlMs,
    holders: owners.map((owner) => resolveHolder(f, view, owner)),
    waiters: resolveWaiters(f, view, owners),
    subscribers: subscribers(f, view),
  };
}

/** The report, without the sample's length and limits (the engine knows those). */
export function resolveWho(facts: WhoFacts): Pick<WhoReport, 'locks' | 'chains'> {
  const f = new Facts(facts);
  const locks = facts.views.filter((v) => v.kind !== 'missing' && v.kind !== 'not-a-lock').map((v) => resolveLock(f, v));
  return { locks, chains: blockedByChains(locks) };
}

/** Every holder and queued waiter has a connection: the sample may end early. */
export function everyoneResolved(facts: WhoFacts): boolean {
  const { locks } = resolveWho(facts);
  return locks.every((l) => l.holders.every((h) => h.connection) && l.waiters.every((w) => w.connection));
}
