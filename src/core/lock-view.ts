// The decoded, read-only picture of one lock key: what `inspect --json` prints (a stable,
// documented shape), what `ls` tabulates, what `--watch` diffs between ticks and what `doctor`
// checks. Produced by a pure decoder from one raw snapshot; no I/O here.

/** What the data says a key is (docs/redisson-protocol.md §4, docs/lock-formats.md). */
export type InspectKind =
  /** Redisson RLock hash (also RSpinLock and NonReentrantLock: the data is the same). */
  | 'reentrant'
  | 'fair'
  /** Redisson RReadWriteLock hash (field `mode`). */
  | 'rw'
  | 'fenced'
  /** Redisson `getMultiLock(group, values)` (3.38+): one hash per group, a field per value locked. */
  | 'multi-lock'
  /** Redisson RRateLimiter: its config hash, read with the permits left and handed out. Not a lock. */
  | 'rate-limiter'
  /** Redisson RSemaphore: integer string of available permits. */
  | 'semaphore'
  /** Redisson RPermitExpirableSemaphore: integer string + `{name}:timeout` zset of permit ids. */
  | 'expirable-semaphore'
  /** Redisson RCountDownLatch: integer string count. */
  | 'latch'
  /** A token string lock (node-redlock, redsync, redis-py, redis-semaphore mutex, Spring, ShedLock, hand-written). */
  | 'token'
  /** redis-semaphore `Semaphore` / `MultiSemaphore`: zset of holder ids scored by acquire time. */
  | 'rs-semaphore'
  /** The key exists but is not a lock (application data, a companion key on its own, ...). */
  | 'not-a-lock'
  /** The key does not exist. */
  | 'missing';

export const INSPECT_KINDS: readonly InspectKind[] = [
  'reentrant', 'fair', 'rw', 'fenced', 'multi-lock', 'rate-limiter', 'semaphore', 'expirable-semaphore', 'latch', 'token', 'rs-semaphore', 'not-a-lock', 'missing',
];

export type Severity = 'error' | 'warning' | 'info';

export interface LockWarning {
  /** Stable machine name, e.g. `no-ttl`, `zombie-reader`, `orphan-timeout-key`, `dead-queue-head`. */
  readonly code: string;
  readonly severity: Severity;
  /** One line a person can act on. */
  readonly message: string;
}

export interface HolderView {
  /** The raw field or value: `<uuid>:<thread>` (`:write` for a writer), or a token. */
  readonly owner: string;
  /** Redisson client UUID and thread id when the owner has that form. */
  readonly client?: string | undefined;
  readonly thread?: string | undefined;
  readonly count: number;
  readonly write?: boolean | undefined;
}

export interface QueueEntryView {
  readonly owner: string;
  /** 0 = next in line. */
  readonly position: number;
  /** Deadline from the timeout zset relative to the snapshot: negative = overdue (purged at the next attempt); null = no score. */
  readonly deadlineInMs: number | null;
  /** Estimated wait before this waiter gets the lock if everyone ahead uses their full allowance. */
  readonly expectedWaitMs?: number | undefined;
  /** Clients subscribed to this waiter's own wake-up channel (a live Redisson waiter has 1). */
  readonly subscribers?: number | undefined;
}

export interface TimeoutKeyView {
  readonly key: string;
  readonly ttlMs: number;
}

export interface ReaderView {
  readonly owner: string;
  readonly client?: string | undefined;
  readonly thread?: string | undefined;
  readonly count: number;
  /** `{name}:<owner>:rwlock_timeout:<n>` keys that exist, with their TTL. */
  readonly timeoutKeys: readonly TimeoutKeyView[];
  /** All of this reader's timeout keys are gone: it is dead but still counted. */
  readonly zombie: boolean;
}

/** The token-lock libraries whose value format inspect tells apart (docs/lock-formats.md). */
export const TOKEN_LIBRARIES = [
  'node-redlock', 'redsync', 'redis-py', 'redis-semaphore', 'spring', 'shedlock', 'python-redis-lock', 'bsm-redislock', 'unknown',
] as const;
export type TokenLibraryName = (typeof TOKEN_LIBRARIES)[number];

export interface TokenFacts {
  /** Spring RedisLockRegistry: the registry key and the lock's name, split at the key's first ':'. */
  readonly registryKey?: string | undefined;
  readonly lockKey?: string | undefined;
  /** The owner label the library stores: ShedLock's host name. */
  readonly host?: string | undefined;
  /** ShedLock: when its holder took the lock (or last rewrote it), epoch ms. */
  readonly lockedAt?: number | undefined;
  /** The holder's own id: Spring's registry client id, ShedLock (6.7+)'s per-lock UUID. */
  readonly id?: string | undefined;
}

/** One value of a Redisson group multi-lock. */
export interface MultiLockValueView {
  /** The value as Redisson stores it: a 22-character base64 hash of its encoded form. */
  readonly value: string;
  /** `<uuid>:<thread>` of the holder. */
  readonly owner: string;
  /** The owner's re-entries on this value. */
  readonly count: number;
  /** Its own expire_time relative to the snapshot (<= 0: lapsed, free to the next locker); null when absent. */
  readonly leaseLeftMs: number | null;
}

/** Permits one RRateLimiter grant took, within the current interval. */
export interface RateGrantView {
  readonly permits: number;
  /** Since the grant, at the snapshot. */
  readonly agoMs: number;
  /** Until its permits count as free again (the grant's time plus the interval). */
  readonly returnsInMs: number;
}

/** One RRateLimiter state: the shared one (OVERALL) or one client's (PER_CLIENT). */
export interface RateLimiterStateView {
  /** The Redisson client id of a PER_CLIENT state; null for the shared one. */
  readonly client: string | null;
  /** The `:value` key: permits left as last written; null before the first acquisition. */
  readonly stored: number | null;
  /** What a tryAcquire would find now: grants past the interval come back first. */
  readonly availableNow: number;
  /** Grants inside the current interval, oldest first (at most the snapshot's cap). */
  readonly grants: readonly RateGrantView[];
  /** Permits of grants past the interval, still in the zset until the next acquisition returns them. */
  readonly returnablePermits: number;
  /** Members of the `:permits` zset, expired ones included. */
  readonly grantCount: number;
  readonly valueTtlMs: number;
  readonly permitsTtlMs: number;
}

/** Redisson RRateLimiter: its settings and each state (docs/lock-formats.md). */
export interface RateLimiterView {
  readonly rate: number;
  readonly intervalMs: number;
  readonly type: 'overall' | 'per-client';
  /** 0: none; otherwise each acquisition sets this TTL on the config and the state keys. */
  readonly keepAliveMs: number;
  readonly states: readonly RateLimiterStateView[];
}

export interface PermitView {
  /** Permit id, hex-encoded (raw 16-byte members since Redisson 3.17). */
  readonly id: string;
  /** null for a permit without expiry. */
  readonly expiresInMs: number | null;
  readonly expired: boolean;
}

export interface ReplicaView {
  readonly replica: string;
  readonly offset: number;
  /** The primary's offset right after the snapshot minus this replica's: 0 means it has the key's last write. */
  readonly lagBytes: number;
  /** inspect reads the key on the replica itself: whether it is there (null: the replica could not be read). */
  readonly hasKey?: boolean | null | undefined;
  /** Its TTL there in ms (-1 none), when it has it. */
  readonly ttlMs?: number | undefined;
  /** Why the replica could not be read, when hasKey is null. */
  readonly error?: string | undefined;
}

export interface LockView {
  readonly key: string;
  /** Set only when the key's bytes are not valid UTF-8: `key` then shows them as \xNN escapes. */
  readonly keyHex?: string | undefined;
  readonly kind: InspectKind;
  /**
   * Present only when the data fits more than one kind and no --kind chose: every kind it fits,
   * `kind` (the reading shown) first. `possibleKinds ?? [kind]` is the list a script can test.
   */
  readonly possibleKinds?: readonly InspectKind[] | undefined;
  /** Redis type of the key (`none` when missing). */
  readonly type: string;
  /** PTTL: -1 = no TTL (an error for a lock), -2 = missing. */
  readonly ttlMs: number;
  readonly holders: readonly HolderView[];
  /** Fair locks: the wait queue in order. */
  readonly queue?: readonly QueueEntryView[] | undefined;
  /** Read-write locks. */
  readonly mode?: 'read' | 'write' | undefined;
  readonly readers?: readonly ReaderView[] | undefined;
  readonly orphanTimeoutKeys?: readonly TimeoutKeyView[] | undefined;
  /** Group multi-locks: every value held, sorted by its stored hash. */
  readonly multiLockValues?: readonly MultiLockValueView[] | undefined;
  /** Redisson rate limiters: rate, interval, type and the permits of each state. */
  readonly rateLimiter?: RateLimiterView | undefined;
  /** Fenced locks: the fencing counter (last token handed out). */
  readonly token?: number | undefined;
  /** Token locks: the stored value and the library whose format it matches. */
  readonly value?: string | undefined;
  readonly library?: TokenLibraryName | undefined;
  /** Token locks: what the library stores or implies beside the owner's id (docs/lock-formats.md). */
  readonly tokenFacts?: TokenFacts | undefined;
  /** bsm/redislock: the caller's metadata stored after its 22-character token. */
  readonly metadata?: string | undefined;
  /** bsm/redislock ObtainMulti: every key holding this lock's value (`key` is the first). */
  readonly keys?: readonly string[] | undefined;
  /** Semaphores: available permits; expirable semaphores and redis-semaphore also list acquired permits. */
  readonly available?: number | undefined;
  readonly permits?: readonly PermitView[] | undefined;
  /** Count-down latch count. */
  readonly count?: number | undefined;
  /** Clients subscribed to the key's unlock / notification channel(s). */
  readonly waiters: number;
  /** A key that is not a lock: its size (HLEN, LLEN, STRLEN, ...). */
  readonly size?: number | undefined;
  readonly replicas?: readonly ReplicaView[] | undefined;
  readonly warnings: readonly LockWarning[];
  /** Epoch ms the snapshot was taken (server time when available). */
  readonly readAt: number;
  /** Unset: one atomic script read it. Otherwise read with plain commands, as a user without scripting must. */
  readonly readConsistency?: ReadConsistency | undefined;
}

/**
 * How a snapshot was read when no script could be run: `separate-reads` (not atomic, but two
 * reads agreed), `changed-during-read` (the key kept changing between reads: parts may disagree).
 */
export type ReadConsistency = 'separate-reads' | 'changed-during-read';
