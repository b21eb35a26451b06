import type { LockKind } from '../core/lock-kind.js';
import type { Connection } from '../redis/connection.js';

// The kinds are pure data in core (state/ and ui/ name them too); the protocols' home re-exports them.
export { LOCK_KINDS, parseKind, type LockKind } from '../core/lock-kind.js';

/** PUBLISH, or SPUBLISH as Redisson >= 3.22 does on a Redis 7 Cluster (docs/redisson-protocol.md §1.4). */
export type PubSubMode = 'plain' | 'sharded';

/** Everything a command needs to take a lock, parsed once from its flags (acquire, hold). */
export interface LockSetup {
  readonly kind: LockKind;
  readonly key: string;
  readonly owner: string;
  readonly leaseMs: number;
  readonly waitMs: number;
  /** A group multi-lock's values (--values); undefined for every other kind. */
  readonly values?: readonly string[] | undefined;
}

/** What a lock protocol needs to talk to Redis. */
export interface LockEnv {
  readonly conn: Connection;
  /** Independent primaries for multi-node Redlock; empty for every other kind. */
  readonly nodes: readonly Connection[];
  readonly pubsub: PubSubMode;
  /** Wall clock (epoch ms): the fair lock's deadlines are epoch ms like Redisson's. */
  readonly now: () => number;
}

export interface Holder {
  /** Hash field (`<uuid>:<thread>`, `...:write`) or token value. */
  readonly owner: string;
  readonly count: number;
}

/** One node's answer in a multi-node Redlock attempt. */
export interface Vote {
  readonly node: string;
  /** `pending`: the round was decided before this node answered. */
  readonly result: 'locked' | 'held' | 'error' | 'pending';
  readonly ms: number;
  readonly detail?: string;
}

export type Attempt =
  | {
      readonly acquired: true;
      /** Hold count after this acquisition (1 on a first acquire; more on re-entry). */
      readonly count: number;
      /** Fencing token (fenced locks). */
      readonly token?: number;
      readonly votes?: readonly Vote[];
      /** Redlock: every node's vote, once the ones still pending at the decision have answered. */
      readonly allVotes?: Promise<readonly Vote[]>;
      /** Redlock: how long the lock is safe to use, lease - elapsed - drift. */
      readonly validityMs?: number;
    }
  | {
      readonly acquired: false;
      /** PTTL of the lock: -1 when the key has no TTL. */
      readonly ttlMs: number;
      readonly holders: readonly Holder[];
      readonly votes?: readonly Vote[];
      readonly allVotes?: Promise<readonly Vote[]>;
    };

export type ReleaseOutcome = 'released' | 'decremented' | 'not-owner';

export interface LockRequest {
  readonly key: string;
  /** Redisson holder `<uuid>:<thread>` (the write lock adds `:write` itself) or token value. */
  readonly owner: string;
  readonly leaseMs: number;
  /** A group multi-lock's values (its stored field names); other kinds lock the key alone. */
  readonly values?: readonly string[] | undefined;
}

/** What a waiter learns from a refused attempt: shown live by `acquire --wait` / `hold --wait` on a terminal. */
export interface WaitProgress {
  readonly holders: readonly Holder[];
  /** PTTL of the lock: -1 when the key has no TTL. */
  readonly ttlMs: number;
  /** Fair locks: our place in the queue, 0 = next. */
  readonly queuePosition?: number | undefined;
}

export interface WaitOptions {
  readonly waitMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Called after every refused attempt while waiting; costs a read per attempt for fair locks (the queue position). */
  readonly onRefused?: ((progress: WaitProgress) => void) | undefined;
}

export interface TokenOwnerFormat {
  fresh(): string;
  /** The owner of a client known by this UUID (a REPL client), the same on every call. */
  forClient(clientUuid: string): string;
}

export interface LockProtocol {
  readonly kind: LockKind;
  /** `redisson` owners are `<uuid>:<thread>`; `token` owners are the stored random value. */
  readonly ownerFormat: 'redisson' | 'token';
  /**
   * Token kinds whose library writes its own value format (Spring's client UUID, ShedLock's
   * `ADDED:<instant>@<host>:<uuid>`): a fresh owner, and the one a long-lived client keeps.
   * Without it a token owner is 32 random hex characters, node-redlock's.
   */
  readonly tokenOwner?: TokenOwnerFormat | undefined;
  /** The library's own lease when none is given (Spring's 60 s); otherwise the command's default. */
  readonly defaultLeaseMs?: number | undefined;
  /** One attempt, one round trip; never queues. */
  tryAcquire(env: LockEnv, req: LockRequest): Promise<Attempt>;
  /** Waits up to waitMs the way the imitated library does (pub/sub wake-ups, TTL timer, fair queue). */
  acquire(env: LockEnv, req: LockRequest, opts: WaitOptions): Promise<Attempt>;
  release(env: LockEnv, req: LockRequest): Promise<ReleaseOutcome>;
  /** Extends the lease if the owner still holds it; false means the lock is lost. */
  renew(env: LockEnv, req: LockRequest): Promise<boolean>;
  /** Deletes the lock whoever holds it and wakes waiters like the library's forceUnlock. */
  forceUnlock(env: LockEnv, key: string): Promise<boolean>;
}

export function publishCommand(env: LockEnv): 'publish' | 'spublish' {
  return env.pubsub === 'sharded' ? 'spublish' : 'publish';
}
