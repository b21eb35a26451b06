// The trace decoder for keyspace notifications (`trace --source keyspace`): the server publishes
// the name of what happened to a key (`set`, `hincrby`, `expire`, `del`, `expired`, ...) on
// `__keyspace@<db>__:<key>`, and nothing else: no client, no script, no value, no reply. So the
// source reads the key right after a write (GET or HGETALL, and PTTL) and the decoder compares
// that reading with the lock model: a new holder acquired, a hold count went down, a holder is
// gone. A reading that came too late (the key had changed again) leaves the owner unknown, and
// the event says so. Expiries are the server's own `expired` notifications, never computed.
//
// What keyspace events cannot show: attempts and refusals (a refused SET NX or a script that
// changed nothing publishes nothing), so neither `expired-while-held` nor `overlap` can be
// proven from them; nor who sent a DEL, so a token lock's DEL counts as its release.

import type { TraceEvent } from './events.js';
import { keyInfo } from './keys.js';
import { LockModel, type LockState } from './lock-model.js';

/** What the source read from the key just after a notification (undefined fields: not read). */
export interface KeyReading {
  readonly exists: boolean;
  /** GET, for a string key. */
  readonly value?: string;
  /** HGETALL, for a hash key. */
  readonly fields?: Readonly<Record<string, string>>;
  /** PTTL: -1 no TTL, -2 gone. */
  readonly pttl: number;
}

export interface KeyspaceNotice {
  /** Server epoch ms (estimated: notifications carry no time). */
  readonly t: number;
  readonly key: string;
  /** The event name Redis published: `set`, `hincrby`, `expire`, `del`, `expired`, ... */
  readonly event: string;
  readonly reading?: KeyReading | undefined;
}

export type ReadingKind = 'string' | 'hash' | 'ttl';

const WRITES_THAT_SET_A_LEASE = new Set(['set', 'hincrby', 'hset', 'hdel']);

/** The reading the decoder needs after `event`, if any (the source sends it at once). */
export function readingFor(event: string): ReadingKind | undefined {
  if (event === 'set') return 'string';
  if (event === 'hincrby' || event === 'hset' || event === 'hdel') return 'hash';
  if (event === 'expire' || event === 'persist') return 'ttl';
  return undefined;
}

/** Stands for a holder whose id no reading showed. */
const UNKNOWN = '?';
const OWNER_UNKNOWN = 'owner unknown: keyspace events carry no values and the key had changed when read';
const FROM_SERVER = "the server's expired notification";

export interface KeyspaceDecoderOptions {
  readonly wants?: (lock: string) => boolean;
  readonly node?: string;
}

export class KeyspaceDecoder {
  readonly model: LockModel;
  private readonly wants: (lock: string) => boolean;
  /** The notice before this one: one command's (or script's) notices on a key come together. */
  private prev: KeyspaceNotice | undefined;
  private out: TraceEvent[] = [];

  constructor(private readonly opts: KeyspaceDecoderOptions = {}) {
    this.model = new LockModel(opts.node);
    this.wants = opts.wants ?? (() => true);
  }

  /** Decodes one notice (with its reading); returns the events it completed. */
  push(n: KeyspaceNotice): TraceEvent[] {
    const prev = this.prev;
    this.prev = n;
    const info = keyInfo(n.key);
    if (info.role !== 'lock' || !this.wants(n.key)) return [];
    const sameOp = prev?.key === n.key;
    switch (n.event) {
      case 'set':
        this.tokenSet(n);
        break;
      case 'hincrby':
      case 'hset':
      case 'hdel':
        this.hashChange(n);
        break;
      case 'expire':
      case 'persist':
        // SET ... PX and a lock script's PEXPIRE after its write: the lease was read with the write.
        if (!(sameOp && n.event === 'expire' && WRITES_THAT_SET_A_LEASE.has(prev.event))) this.renewal(n);
        break;
      case 'del':
        // Redisson's release script decrements, then deletes: the read after its decrement found the key gone.
        this.deleted(n, sameOp && (prev.event === 'hincrby' || prev.event === 'hdel') && prev.reading?.exists !== true);
        break;
      case 'expired':
        this.expired(n);
        break;
      case 'rename_from':
      case 'evicted':
        this.removed(n, [n.event === 'rename_from' ? 'RENAME' : 'evicted', n.key]);
        break;
      default: {
        const s = this.model.get(n.key);
        if (s) this.emit(n, { kind: 'raw', lock: n.key, library: s.library, command: [n.event, n.key] });
      }
    }
    const events = this.out;
    this.out = [];
    return events;
  }

  /** Ends the holds of `lock` because it is absent on a promoted primary. */
  lostInFailover(lock: string, t: number, detail: string): TraceEvent[] {
    const s = this.model.get(lock);
    return s ? this.model.lose(s, t, detail) : [];
  }

  private emit(n: KeyspaceNotice, e: Omit<TraceEvent, 't'>): void {
    this.out.push(named({ ...e, t: n.t, ...(this.opts.node ? { node: this.opts.node } : {}) }));
  }

  /** The lease as read (PTTL just after the write), set on the model; undefined: none, or PERSIST. */
  private lease(s: LockState, n: KeyspaceNotice): number | undefined {
    const pttl = n.reading?.pttl;
    const leaseMs = n.event !== 'persist' && pttl !== undefined && pttl > 0 ? pttl : undefined;
    this.model.setExpiry(s, n.t, leaseMs);
    return leaseMs;
  }

  /** A token lock's SET: a new value is an acquisition, the holder's own value a renewal. */
  private tokenSet(n: KeyspaceNotice): void {
    const known = this.model.get(n.key);
    const value = n.reading?.exists ? n.reading.value : undefined;
    // A string never seen as a lock and written without a TTL is application data.
    if (!known && (value === undefined || (n.reading?.pttl ?? -1) < 0)) return;
    const s = known ?? this.model.state(n.key, 'token');
    s.library = 'token';
    const owner = value ?? UNKNOWN;
    const base = { lock: n.key, library: 'token' as const, owner };
    if (value !== undefined && s.holders.has(value)) {
      const leaseMs = this.lease(s, n);
      return this.emit(n, { ...base, kind: 'renewed', ...(leaseMs !== undefined ? { leaseMs } : {}) });
    }
    s.holders.clear();
    s.holders.set(owner, { count: 1, shared: false, client: {} });
    const leaseMs = this.lease(s, n);
    this.emit(n, { ...base, kind: 'acquired', count: 1, ...(leaseMs !== undefined ? { leaseMs } : {}) });
  }

  /** A Redisson hash changed: the reading's fields against the holders the model had. */
  private hashChange(n: KeyspaceNotice): void {
    const fields = n.reading?.exists ? n.reading.fields : undefined;
    const known = this.model.get(n.key);
    if (fields === undefined) {
      // Gone when read: a release (the `del` that follows ends it) or an acquisition already undone.
      if ((known?.holders.size ?? 0) > 0 || n.event === 'hdel') return;
      const s = this.model.state(n.key, 'redisson');
      s.holders.set(UNKNOWN, { count: 1, shared: false, client: {} });
      return this.emit(n, { kind: 'acquired', lock: n.key, library: 'redisson', owner: UNKNOWN, count: 1 });
    }
    const s = known ?? this.model.state(n.key, 'redisson');
    s.library = 'redisson';
    const mode = fields.mode;
    s.mode = mode === 'read' || mode === 'write' ? mode : undefined;
    const leaseMs = this.lease(s, n);
    const now = new Map(Object.entries(fields).filter(([field, count]) => field !== 'mode' && /^\d+$/.test(count)).map(([field, count]) => [field, Number(count)] as const));
    // The reading names the holders: a placeholder for one nobody could read is dropped.
    if (now.size > 0) s.holders.delete(UNKNOWN);
    for (const [owner, count] of now) {
      const prev = s.holders.get(owner);
      const shared = s.mode === 'read' && !owner.endsWith(':write');
      s.holders.set(owner, { count, shared, client: prev?.client ?? {} });
      const base = { lock: n.key, library: 'redisson' as const, owner, count, ...(shared ? { shared } : {}) };
      if (prev === undefined || count > prev.count) this.emit(n, { ...base, kind: shared ? 'reader-join' : 'acquired', ...(leaseMs !== undefined ? { leaseMs } : {}) });
      else if (count < prev.count) this.emit(n, { ...base, kind: shared ? 'reader-leave' : 'released' });
    }
    for (const [owner, hold] of [...s.holders]) {
      if (now.has(owner) || owner === UNKNOWN) continue;
      s.holders.delete(owner);
      this.emit(n, { kind: hold.shared ? 'reader-leave' : 'released', lock: n.key, library: 'redisson', owner, count: 0, ...(hold.shared ? { shared: true } : {}) });
    }
  }

  /** PEXPIRE / PERSIST on a held lock: a renewal by its holder (the only one, when one). */
  private renewal(n: KeyspaceNotice): void {
    const s = this.model.get(n.key);
    if (!s || s.holders.size === 0 || n.reading?.exists === false) return;
    const leaseMs = this.lease(s, n);
    const owner = s.holders.size === 1 ? [...s.holders.keys()][0]! : UNKNOWN;
    this.emit(n, { kind: 'renewed', lock: n.key, library: s.library, owner, ...(leaseMs !== undefined ? { leaseMs } : {}) });
  }

  /**
   * DEL of a lock. Right after a hold count went down (Redisson's release script) it is that
   * release; on a token lock it is its release too (compare-and-delete and a plain DEL publish the
   * same `del`); on a hash with no release before it, it is a removal by someone else.
   */
  private deleted(n: KeyspaceNotice, afterRelease: boolean): void {
    const s = this.model.get(n.key);
    if (!s) return;
    if (!afterRelease && s.library !== 'token') return this.removed(n, ['DEL', n.key]);
    for (const [owner, hold] of s.holders) {
      this.emit(n, { kind: hold.shared ? 'reader-leave' : 'released', lock: n.key, library: s.library, owner, count: 0, ...(hold.shared ? { shared: true } : {}) });
    }
    this.model.clear(s);
  }

  private removed(n: KeyspaceNotice, command: readonly string[]): void {
    const s = this.model.get(n.key);
    if (!s) return;
    const holders = [...s.holders.keys()].filter((o) => o !== UNKNOWN);
    this.emit(n, { kind: 'deleted', lock: n.key, library: s.library, holders, command, detail: 'keyspace events do not say which client' });
    this.model.clear(s);
  }

  private expired(n: KeyspaceNotice): void {
    const s = this.model.get(n.key);
    if (!s) return;
    if (s.holders.size === 0) return this.model.clear(s);
    for (const e of this.model.expire(s, n.t, FROM_SERVER)) this.out.push(named(e));
    this.model.clear(s);
  }
}

/** The event as shown: a placeholder owner becomes no owner and words that say why. */
function named(e: TraceEvent): TraceEvent {
  const holders = e.holders?.filter((h) => h !== UNKNOWN);
  const { owner, holders: _holders, ...rest } = e;
  return {
    ...rest,
    ...(owner !== undefined && owner !== UNKNOWN ? { owner } : {}),
    ...(holders !== undefined ? { holders } : {}),
    ...(owner === UNKNOWN ? { detail: e.detail ? `${e.detail}; ${OWNER_UNKNOWN}` : OWNER_UNKNOWN } : {}),
  };
}
