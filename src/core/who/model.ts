// What `who` reports: each lock's holders and waiters resolved to server connections, how each was
// learned, whether the holder is still alive, and the blocked-by chains across locks. This is also
// the shape `who --json` prints (one document) and the REPL panel draws.

import type { InspectKind, LockView } from '../lock-view.js';
import type { TraceEvent } from '../trace/events.js';
import type { ServerConnection } from './connections.js';

/**
 * How a party was tied to a connection: `monitor` (seen writing its owner id in the sample),
 * `trace-memory` (an earlier `trace` saw that connection write it: the local owner directory),
 * `owner-label` (the library stores a label in the lock, such as ShedLock's host; no connection).
 */
export type LearnedVia = 'monitor' | 'trace-memory' | 'owner-label';

/** A connection a party was seen on, with what CLIENT LIST says of it now. */
export interface WhoConnection {
  readonly addr: string;
  readonly name?: string | undefined;
  readonly libName?: string | undefined;
  readonly libVer?: string | undefined;
  readonly ageMs?: number | undefined;
  readonly idleMs?: number | undefined;
  /** Not in CLIENT LIST any more; undefined when CLIENT LIST could not be read. */
  readonly gone?: boolean | undefined;
}

export interface WhoParty {
  /** The owner id in the lock (Redisson `<uuid>:<thread>`, a token, a queue entry). */
  readonly owner: string;
  readonly connection?: WhoConnection | undefined;
  readonly via?: LearnedVia | undefined;
  /** The library's own label for the owner (a host name), when it stores one. */
  readonly label?: string | undefined;
  /** Fair queue: 0 = next in line. */
  readonly position?: number | undefined;
}

/**
 * `alive`: its connection is there; `gone`: its connection is gone and nobody renews, the lease
 * runs out in `freesInMs` (null: the key has no TTL, it never frees); `zombie-renewer`: its
 * connection is gone but `renewer` keeps renewing the lease; `unresolved`: no connection is known;
 * `unknown`: CLIENT LIST could not be read.
 */
export type Liveness =
  | { readonly state: 'alive' }
  | { readonly state: 'gone'; readonly freesInMs: number | null }
  | { readonly state: 'zombie-renewer'; readonly renewer: WhoConnection; readonly freesInMs: number | null }
  | { readonly state: 'unresolved' }
  | { readonly state: 'unknown' };

export interface WhoHolder extends WhoParty {
  readonly liveness: Liveness;
  /** Connections seen renewing this owner's lease in the sample. */
  readonly renewers: readonly WhoConnection[];
}

export interface WhoSubscribers {
  /** Clients subscribed to the lock's channels (PUBSUB NUMSUB, as inspect counts them). */
  readonly count: number;
  /** The connections subscribed to them, when the server's facts say which (see `exact`). */
  readonly connections: readonly WhoConnection[];
  /**
   * true: these are exactly the subscribers (the only channel with subscribers on the server is
   * this lock's); false: CLIENT LIST does not name channels, so these are every subscribed connection.
   */
  readonly exact: boolean;
}

export interface WhoLock {
  readonly key: string;
  readonly kind: InspectKind;
  /** The library whose format the data has (`redisson` for Redisson's layouts). */
  readonly library: string;
  readonly ttlMs: number;
  readonly holders: readonly WhoHolder[];
  readonly waiters: readonly WhoParty[];
  readonly subscribers: WhoSubscribers;
}

/** A party in a chain: its connection when resolved, else its owner. */
export interface ChainParty {
  readonly connection?: WhoConnection | undefined;
  readonly owner: string;
}

/** `waiter` waits for links[0].lock, held by links[0].holder, who waits for links[1].lock, ... */
export interface WhoChain {
  readonly waiter: ChainParty;
  readonly links: readonly { readonly lock: string; readonly holder: ChainParty }[];
  /** The last holder is the first waiter again: a deadlock. */
  readonly cycle: boolean;
}

export interface WhoReport {
  readonly locks: readonly WhoLock[];
  readonly chains: readonly WhoChain[];
  readonly sample: {
    /** How long MONITOR was sampled (0: not at all). */
    readonly ms: number;
    /** It ended before --sample because every holder and known waiter was resolved. */
    readonly endedEarly: boolean;
  };
  /** What could not be learned and why, naming the ACL rule that would allow it. */
  readonly limits: readonly string[];
  /** Server time of the final read, epoch ms. */
  readonly readAt: number;
}

/** An owner a `trace` saw written, and by which connection (the local owner directory). */
export interface RememberedWriter {
  readonly target: string;
  readonly key: string;
  readonly owner: string;
  readonly addr: string;
  readonly name?: string | undefined;
  /** Server time it was seen, epoch ms. */
  readonly at: number;
}

/** Everything `who` read, for the pure resolution. */
export interface WhoFacts {
  readonly views: readonly LockView[];
  /** The MONITOR sample, decoded as `trace` decodes it. */
  readonly events: readonly TraceEvent[];
  /** CLIENT LIST at the end; undefined when it was refused. */
  readonly connections: readonly ServerConnection[] | undefined;
  /** Owners earlier traces saw written on this target. */
  readonly remembered: readonly RememberedWriter[];
  /** PUBSUB CHANNELS: every channel with subscribers; undefined when refused. */
  readonly channels?: readonly string[] | undefined;
  /** Addresses of who's own connections, never reported as a party. */
  readonly own?: readonly string[] | undefined;
}
