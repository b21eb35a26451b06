// The history a scenario run (and later `race`) records: every invocation and completion of a
// client operation, every fault on a node, and what the server held, each with its time. The
// checker reads only this, so a hand-written history tests it exactly like a recorded one.

/** What a client does; `incr` is the read-modify-write on the demo counter. */
export const CLIENT_OPS = ['acquire', 'release', 'renew', 'enter', 'leave', 'write', 'incr', 'pause', 'crash'] as const;
export type ClientOp = (typeof CLIENT_OPS)[number];

/** `invoke` when the client starts an operation, `ok` / `fail` when it completes (same `id`). */
export type Phase = 'invoke' | 'ok' | 'fail';

/** Times are ms since the run started (the runner's monotonic clock). */
export interface OpEvent {
  readonly kind: 'op';
  readonly t: number;
  readonly client: string;
  readonly op: ClientOp;
  readonly phase: Phase;
  /** Pairs an invoke with its completion; unique per run. */
  readonly id: number;
  /** Human text for the timeline: "lease 500 ms", "naive DEL removed B's lock", "NOT OWNER". */
  readonly detail?: string;
  /** acquire ok: the fencing token granted (fenced locks); write: the token the write carried. */
  readonly token?: number;
  /** acquire ok: the lease (or Redlock validity) the client believes it has from `t`. */
  readonly leaseMs?: number;
  /** acquire ok / fail (race): attempts the server refused during this acquire, before it ended. */
  readonly refusals?: number;
  /** acquire ok (race, one server): the wait on the server's clock, first attempt to the one that took the lock (ms). */
  readonly serverWaitMs?: number;
  /** release ok (race, one server): the hold on the server's clock, acquisition to release or to the lease's end (ms). */
  readonly serverHoldMs?: number;
  /** write: the value written. incr ok: the value written (read + 1). */
  readonly value?: number;
  /** incr ok: the value the client read before writing. */
  readonly read?: number;
  /** write / incr ok: whether the resource accepted it (fenced register rejects stale tokens). */
  readonly accepted?: boolean;
  /**
   * enter / write / incr: whether the server said, at that moment, that this client held the lock
   * (an out-of-band read by the runner, not something the client knew).
   */
  readonly held?: boolean;
  /**
   * acquire invoke / ok: true when the lock taken is shared (a read lock). Critical sections entered
   * while holding a shared lock do not conflict with each other, only with exclusive ones; absent
   * means exclusive. (`detail` is free text, so the checker cannot read the mode from it.)
   */
  readonly shared?: boolean;
}

/** A sandbox fault: kill, restart, pause, failover, clock, partition, ... on a node. */
export interface FaultEvent {
  readonly kind: 'fault';
  readonly t: number;
  /** Node name (n1, s1, ...) or `sandbox` for topology-wide verbs like failover. */
  readonly node: string;
  readonly verb: string;
  readonly phase: Phase;
  readonly id: number;
  readonly detail?: string;
}

/** What the server held, recorded whenever it changes: client names, or raw owners we do not know. */
export interface ServerEvent {
  readonly kind: 'server';
  readonly t: number;
  /** The node it was read from (the primary, or each Redlock node). */
  readonly node: string;
  readonly holders: readonly string[];
  /** PTTL of the lock key: -2 gone, -1 no TTL. */
  readonly ttlMs: number;
}

/** Things worth a line on the timeline that nothing branches on: "network healed", "SETNX took the key". */
export interface NoteEvent {
  readonly kind: 'note';
  readonly t: number;
  /** A client name, a node name, or `scenario`. */
  readonly lane: string;
  readonly text: string;
}

/**
 * The client learned that its lock is gone (its watchdog's renewal was refused, the server no
 * longer has it, its lease ran out): from here it no longer counts on holding it.
 */
export interface LockLostEvent {
  readonly kind: 'lock-lost';
  readonly t: number;
  readonly client: string;
  /** Why, in words: "the renewal was refused", "the lease ran out". */
  readonly reason: string;
}

/** The client's watchdog extended its lease (the `renewals`-th time for this acquisition). */
export interface RenewedEvent {
  readonly kind: 'renewed';
  readonly t: number;
  readonly client: string;
  readonly renewals: number;
}

/** The last event: the demo resource as the run left it. */
export interface EndEvent {
  readonly kind: 'end';
  readonly t: number;
  /** The read-modify-write counter's final value. */
  readonly counter: number;
  /** The fenced register: last accepted value, its writer and token. */
  readonly register: { readonly value?: number; readonly writer?: string; readonly token?: number };
}

export type HistoryEvent = OpEvent | FaultEvent | ServerEvent | NoteEvent | LockLostEvent | RenewedEvent | EndEvent;

/** A recorded run, ordered by `t` (ties keep recording order). */
export interface History {
  readonly clients: readonly string[];
  /** Node names of the topology, in lane order. */
  readonly nodes: readonly string[];
  readonly events: readonly HistoryEvent[];
}
