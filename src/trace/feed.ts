import type { TraceEvent } from '../core/trace/events.js';
import type { LockModel } from '../core/trace/lock-model.js';
import type { MonitorEndpoint } from '../redis/monitor.js';

// One primary's stream of lock facts, whichever the source: MONITOR (every command, decoded) or
// keyspace notifications (what happened to each key, read back). The trace source runs one feed
// per primary and handles what is the same for both: the plan, reconnecting, a Sentinel failover.

export type TraceSourceKind = 'monitor' | 'keyspace';

/** A live connection of a feed to its node. */
export interface FeedConnection {
  /** Resolves when the connection ends: undefined after close(), the error when it broke. */
  readonly ended: Promise<Error | undefined>;
  close(): void;
}

/** What a feed reports to its source. */
export interface FeedHost {
  emit(events: readonly TraceEvent[]): void;
  /** `count` lines or notifications arrived; `lagMs`: how far behind the server the feed is now. */
  received(count: number, lagMs: number): void;
  /** The largest lag now (ms), across feeds. */
  readonly lagMs: number;
  status(text: string): void;
}

export interface ShardFeed {
  /** The locks the feed believes held (the failover check reads it). */
  readonly model: LockModel;
  /** Connects to the node (again, after a failover: the node may be another); resolves once facts flow. */
  attach(endpoint: MonitorEndpoint): Promise<FeedConnection>;
  /** The stream ended or broke: emits what no later line can complete (MONITOR: a script run still open). */
  flush(): void;
  /** Called every 100 ms: expiries while the stream is quiet, where the feed computes them (MONITOR: asks a fence). */
  tick(): void;
  lostInFailover(lock: string, t: number, detail: string): TraceEvent[];
  /**
   * MONITOR: the server time (epoch ms) up to which every line has arrived, proven by a fence that
   * came back (0 before the first); undefined where the feed has no fences.
   */
  readonly completeUntil?: number;
  /** The server's clock now, estimated (epoch ms). */
  serverNow(): number;
  /** Before stop(), with the connection still open: waits (bounded) until what arrived is complete (MONITOR: a fence). */
  settle(): Promise<void>;
  /** Stops timers, finishes what is in flight, undoes what attach changed (a config it was asked to set). */
  stop(): Promise<void>;
}
