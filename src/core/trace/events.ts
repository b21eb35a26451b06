// What `trace` decodes the server's command stream into: one typed event per lock operation, each
// with the server's time, the lock, the owner (Redisson's `<uuid>:<thread>` field, a token lock's
// value, a permit id) and the client connection that sent it. The checker, the summary, the
// recording and every view read only these, so a recording replays exactly like a live run.

/** The library whose protocol an operation followed (a hash lock is Redisson's layout, whoever wrote it). */
export const TRACE_LIBRARIES = ['redisson', 'token', 'semaphore', 'rate-limiter'] as const;
export type TraceLibrary = (typeof TRACE_LIBRARIES)[number];

export const TRACE_EVENT_KINDS = [
  'attempt',
  'acquired',
  'refused',
  'renewed',
  'renew-refused',
  'released',
  'release-refused',
  'expired',
  'force-unlocked',
  'deleted',
  'queue-join',
  'queue-leave',
  'reader-join',
  'reader-leave',
  'failover',
  'lost-in-failover',
  'raw',
  /** A rate limiter's settings written (Redisson's setRate / trySetRate): `detail` says them. */
  'configured',
  'blind',
  'unblind',
  /** A node's clock stepped forward (`stepMs`): server times after it are that much ahead of real time. */
  'clock-step',
] as const;
export type TraceEventKind = (typeof TRACE_EVENT_KINDS)[number];

/**
 * Events about a node, not about a lock (their lock is `*`): a failover, a period where the trace
 * saw nothing (`blind`: notifications turned off under it, a primary it lost or that restarted)
 * until `unblind`, and a step of the node's clock.
 */
export const NODE_EVENT_KINDS: ReadonlySet<TraceEventKind> = new Set(['failover', 'blind', 'unblind', 'clock-step']);
// Runs for every event (the replay's filter, the summary): compared, not looked up.
export const isNodeEvent = (e: Pick<TraceEvent, 'kind'>): boolean => e.kind === 'failover' || e.kind === 'blind' || e.kind === 'unblind' || e.kind === 'clock-step';

/** The connection an operation came from. */
export interface TraceClient {
  /** `127.0.0.1:53210`, `unix:/path`; absent for events the server caused (an expiry). */
  readonly addr?: string;
  /** CLIENT SETNAME of that connection, when it set one. */
  readonly name?: string;
}

export interface TraceEvent {
  readonly kind: TraceEventKind;
  /** Server time, epoch ms (from MONITOR's timestamps; expiries computed from them). */
  readonly t: number;
  readonly lock: string;
  readonly owner?: string;
  readonly client?: TraceClient;
  /** The primary it happened on (`host:port`), when the trace follows more than one. */
  readonly node?: string;
  readonly library?: TraceLibrary;
  /** acquired / renewed: the lease set from `t` (absent: no TTL on the key). */
  readonly leaseMs?: number;
  /** acquired: re-entry count after it; released: holds left (0 = the lock is free of this owner); a rate limiter's: permits. */
  readonly count?: number;
  /** A shared hold: a reader, or a semaphore permit. */
  readonly shared?: boolean;
  /** refused / deleted / force-unlocked / expired: who held the lock then. */
  readonly holders?: readonly string[];
  /** acquired: the grant counted a fencing token (Redisson's RFencedLock), so writes under it can be fenced. */
  readonly fenced?: boolean;
  /** refused: nobody holds the key as a lock; a plain SET wrote it (application data under the lock's name). */
  readonly data?: true;
  /** acquired: set without NX over a lock the owner no longer held (a silent re-acquire). */
  readonly overwrite?: boolean;
  /** queue-join: the waiter's deadline in the fair lock's timeout set (server epoch ms). */
  readonly deadline?: number;
  /** clock-step: how far the server's clock moved forward beyond the time that passed (ms). */
  readonly stepMs?: number;
  /** The command that did it, for deleted / raw: `DEL orders`, `FLUSHALL`. */
  readonly command?: readonly string[];
  /** Words for a line: "lock was already gone", "old primary 127.0.0.1:7001". */
  readonly detail?: string;
}

/** `name (addr)`, `addr`, or `server`. */
export function clientLabel(client: TraceClient | undefined): string {
  if (!client?.addr) return client?.name ?? 'server';
  return client.name ? `${client.name} (${client.addr})` : client.addr;
}

/** `6f1c2a3b…:1 (worker-1 (127.0.0.1:5001))`: the owner and the connection it came on, for a finding's sentence. */
export const ownerWithClient = (owner: string, client: TraceClient | undefined): string => `${shortOwner(owner)} (${clientLabel(client)})`;

/** A short label for lanes and lines: the client name, else the address, else a short owner. */
export function shortClient(event: Pick<TraceEvent, 'client' | 'owner'>): string {
  return event.client?.name ?? event.client?.addr ?? shortOwner(event.owner ?? '?');
}

/** `6f1c2a3b…:17` for a Redisson owner, the first 8 characters and `…` for a long token. */
export function shortOwner(owner: string): string {
  const redisson = /^([0-9a-f]{8})-[0-9a-f-]{27}(:-?\d+(?::write)?)$/.exec(owner);
  if (redisson) return `${redisson[1]}…${redisson[2]}`;
  return owner.length > 12 ? `${owner.slice(0, 8)}…` : owner;
}
