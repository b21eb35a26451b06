// One key's snapshot exactly as inspect-snapshot.lua gathered it, after src/inspect has checked
// every reply's type. Flat arrays are kept flat (field, value, ...): a watch of many keys decodes
// them every tick, and pairs would only cost allocations.

/** Existing read-hold timeout keys of one holder named in a rw hash. */
export interface RawTimeoutProbe {
  /** `<uuid>:<thread>` (a writer's base name when it has no reader field). */
  readonly holder: string;
  /** Reader hold count from the hash (0 for a writer's base name). */
  readonly count: number;
  /** Flat `index, pttl, ...` of the `rwlock_timeout:<index>` keys that exist. */
  readonly keys: readonly number[];
}

/** One RRateLimiter state: the shared `{name}:value` / `{name}:permits` pair, or one client's. */
export interface RawLimiterState {
  /** '' for the shared pair; else the Redisson client id the pair's names end in. */
  readonly client: string;
  /** The `:value` key's integer text; undefined when it does not exist. */
  readonly value: string | undefined;
  readonly valueTtl: number;
  /** ZCARD of the `:permits` zset (0 when absent), its PTTL, and hexMember, epoch-ms score, ... */
  readonly grantCount: number;
  readonly grantsTtl: number;
  readonly grants: readonly string[];
}

export interface RawSnapshot {
  /** The key as people see it (see displayKey for binary names). */
  readonly key: string;
  /** Hex of the key's bytes when they are not valid UTF-8. */
  readonly keyHex?: string | undefined;
  readonly type: string;
  readonly pttl: number;
  /** Redis server time when the snapshot was taken (epoch ms): deadlines are compared with it. */
  readonly nowMs: number;
  /** HLEN / STRLEN / LLEN / ZCARD / SCARD / XLEN; 0 when missing. */
  readonly size: number;
  /** hash: field, value, ...; string: [value] (empty when too long); zset: member, score, ... */
  readonly body: readonly string[];
  /** Entries read per hash, list or zset; larger ones were sampled or cut. */
  readonly cap: number;
  /** False when the companion keys sit in another Cluster slot and were not read. */
  readonly companionsRead: boolean;
  /** Read alone because its Cluster slot was moving between nodes (so its companions were not read). */
  readonly slotMoving?: boolean;
  readonly queueLength: number;
  /** Fair wait queue, head first (at most cap entries). */
  readonly queue: readonly string[];
  readonly deadlineCount: number;
  /** Fair deadline zset: member, epoch-ms score, ... */
  readonly deadlines: readonly string[];
  /** Fencing counter value, when the key exists. */
  readonly counter?: string | undefined;
  readonly readers: readonly RawTimeoutProbe[];
  /** Expirable-semaphore permit zset: count, its PTTL, and hexId, epoch-ms score, ... */
  readonly permitCount: number;
  readonly permitTtl: number;
  readonly permits: readonly string[];
  /** Subscribers of the lock, rw, semaphore and latch channels. */
  readonly channels: { readonly lock: number; readonly rw: number; readonly semaphore: number; readonly latch: number };
  /** Subscribers of each listed queue entry's own channel, in queue order. */
  readonly waiterSubscribers: readonly number[];
  /** RRateLimiter config hash: its shared state, then each client's asked for (empty for any other key). */
  readonly limiter: readonly RawLimiterState[];
}
