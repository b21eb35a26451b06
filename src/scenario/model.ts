// A scenario as the runner sees it once its file has been read and validated: names resolved,
// durations in ms, defaults filled in. The YAML surface (scenarios/README.md) maps onto this
// one-to-one; load.ts is the only code that knows the YAML spelling.

import type { ResourceOptions } from '../core/demo-resource.js';
import type { ViolationKind } from '../core/scenario/verdict.js';
import type { LockKind } from '../core/lock-kind.js';

export type { ResourceOptions } from '../core/demo-resource.js';
import type { TopologyName } from '../sandbox/types.js';

export interface Scenario {
  /** File name without extension: `expired-lease-misdeletion`. */
  readonly name: string;
  /** Where it was read from (shown in errors and `scenario show`). */
  readonly file: string;
  readonly title: string;
  /** One line for `scenario list`. */
  readonly summary: string;
  /** A few paragraphs: what happens, why it is wrong, what the fix does. */
  readonly narration: string;
  /** Where the race is documented: issue numbers, docs pages, papers. */
  readonly sources: readonly string[];
  /** `scenario show`: what to look at on the timeline. */
  readonly lookFor: readonly string[];
  readonly sandbox: ScenarioSandbox;
  /** The lock every client contends for; a client or a step may pick another kind of the same key (read / write). */
  readonly lock: { readonly kind: LockKind; readonly key: string };
  readonly resource: ResourceOptions;
  readonly clients: readonly ScenarioClient[];
  /** Written to Redis before any client starts (the application data of lock-key-collision). */
  readonly seed: readonly SeedEntry[];
  /** Ordered by `at`; steps at the same time keep file order. */
  readonly steps: readonly Step[];
  /** In file order; at least one. */
  readonly variants: readonly Variant[];
  /** Waiting longer than this to acquire is deadlock / starvation (checker). */
  readonly starvationMs: number;
  /** The run ends this long after the last step has completed (lets leases run out on the timeline). */
  readonly settleMs: number;
  /** How late (scenario ms) a step may run before the race could turn out otherwise; default derived (toleranceOf). */
  readonly toleranceMs?: number;
}

export interface ScenarioSandbox {
  readonly topology: TopologyName;
  /** Redlock: independent primaries (default 5). */
  readonly nodes?: number;
  /** Start nodes under libfaketime so `clock` jumps their real clock (falls back to TTL rewrite, and says so). */
  readonly fakeClock: boolean;
  /** Extra redis-server settings per node or for all (`min-replicas-to-write`, `appendonly`, ...). */
  readonly config: Readonly<Record<string, string>>;
}


export interface ScenarioClient {
  readonly name: string;
  /** Lock kind this client uses (default: the scenario's). */
  readonly kind?: LockKind;
  /** Redlock: the nodes this client can reach (default all); the others look partitioned away from it. */
  readonly reach?: readonly string[];
  /**
   * React to a lost lock (watchdog or renewal says so) by stopping its work (onLockLost / AbortSignal): it
   * leaves the critical section at once and skips its remaining enter, write and incr steps.
   */
  readonly stopOnLost: boolean;
}

export type SeedEntry =
  | { readonly type: 'string'; readonly key: string; readonly value: string }
  | { readonly type: 'hash'; readonly key: string; readonly fields: Readonly<Record<string, string>> };

/** Present on every step. */
export interface StepBase {
  /** ms since the run started; a client busy or paused at that time runs it as soon as it can. */
  readonly at: number;
  /** Variants this step belongs to; undefined = all. */
  readonly only?: readonly string[];
}

export type ClientStep = StepBase & { readonly client: string } & ClientAction;

export type ClientAction =
  | {
      readonly do: 'acquire';
      /** Fixed lease; undefined = watchdog (renewed every watchdogLeaseMs / 3). */
      readonly leaseMs?: number;
      /** Watchdog lease (Redisson's lockWatchdogTimeout, short in scenarios). Default 900 ms. */
      readonly watchdogLeaseMs: number;
      /** Watchdog: stop renewing after this many renewals (the bounded-hold fix). */
      readonly maxRenewals?: number;
      /** How long to wait for the lock (0: one attempt). */
      readonly waitMs: number;
      readonly kind?: LockKind;
      /**
       * `atomic`: the protocol's acquire. `setnx-then-expire`: SETNX, then gapMs later EXPIRE (token locks).
       * `resend-on-timeout`: the client gives up on a reply slower than timeoutMs and sends the acquire again.
       */
      readonly mode: 'atomic' | 'setnx-then-expire' | 'resend-on-timeout';
      readonly gapMs?: number;
      readonly timeoutMs?: number;
      /** After acquiring, `WAIT <n> <ms>` on the same connection; fewer acks = release and fail (checkLockSyncedSlaves). */
      readonly waitReplicas?: number;
      /** Redlock: use the lock only if lease - elapsed - drift > 0 measured after the replies (false = trust it blindly). */
      readonly checkValidity: boolean;
      /** React to losing this acquisition as a stop-on-lost client does (onLockLost / AbortSignal on one lock). */
      readonly stopOnLost?: boolean;
      /**
       * Fair locks: queue as Redisson's lock() on a client with this fairLockWaitTimeout (the deadline
       * allowance written into the queue); waitMs then only bounds how long it blocks. Default: tryLock(wait).
       */
      readonly fairWaitTimeoutMs?: number;
      /** Read / write locks: the writer-preferring discipline (client-rw.ts): readers wait while a writer waits. */
      readonly writerPreference?: boolean;
      /** Read locks: whose timeout keys a renewal extends: its own (Redisson >= 4.4.0, default) or every reader's (<= 4.3). */
      readonly renewReaders?: 'own' | 'all';
    }
  | {
      readonly do: 'release';
      /** `safe`: owner-checked (the protocol's release). `naive-del`: DEL. `get-then-del`: GET, compare, gapMs, DEL. */
      readonly mode: 'safe' | 'naive-del' | 'get-then-del';
      readonly gapMs?: number;
    }
  | {
      readonly do: 'renew';
      /** `safe`: compare-and-extend. `reset`: SET the token again with the lease, whoever holds it now. */
      readonly mode: 'safe' | 'reset';
      readonly leaseMs?: number;
      /** A refresh timer's renewal: it runs at its time even while the client is busy with an earlier step (not while paused). */
      readonly background?: boolean;
    }
  | { readonly do: 'enter' }
  | { readonly do: 'leave' }
  /** Write to the fenced register, carrying the client's current fencing token (if any). */
  | { readonly do: 'write'; readonly value: number }
  /** Read the counter, wait gapMs, write read + 1 (a lost update when another increment lands in the gap). */
  | { readonly do: 'incr'; readonly gapMs: number }
  /** Freeze the client: no steps, no renewals, no reply handling for forMs (a GC pause, SIGSTOP). */
  | { readonly do: 'pause'; readonly forMs: number }
  /** The client dies: never releases, its renewals stop, its connections close. */
  | { readonly do: 'crash' }
  /** Cut this client off from Redis (all its connections, or only `nodes`) until `heal`. */
  | { readonly do: 'partition'; readonly nodes?: readonly string[] }
  | { readonly do: 'heal' };

/** A sandbox fault verb on a node (see SandboxHandle). */
export type FaultStep = StepBase & {
  readonly fault: 'kill' | 'restart' | 'pause' | 'resume' | 'failover' | 'stall-replication' | 'clock' | 'latency' | 'partition' | 'heal' | 'flush';
  /** Node name (n1, primary, ...); failover takes none. */
  readonly node?: string;
  /** clock: `+5s` / `x10`; latency: ms as text (`200ms`). */
  readonly value?: string;
  readonly forMs?: number;
  /** restart: come back empty. */
  readonly amnesia?: boolean;
};

/** A line on the scenario lane: "R3's clock jumps", "the fix: release checks the owner". */
export type NoteStep = StepBase & { readonly note: string };

/**
 * What a wait step waits for: `expired`, the key seen gone on the server (every node the runner
 * reads, or `node`); `reply`, every step handed to `client` so far has returned.
 */
export type WaitFor =
  | { readonly until: 'expired'; readonly key?: string; readonly node?: string; readonly timeoutMs?: number }
  | { readonly until: 'reply'; readonly client: string; readonly timeoutMs?: number };

/** Holds the timetable until an event is seen (waits.ts); the steps after it move by the event's natural delay. */
export type WaitStep = StepBase & { readonly wait: WaitFor };

export type Step = ClientStep | FaultStep | NoteStep | WaitStep;

export interface Variant {
  /** `unsafe`, `fixed`, or any other name the file gives. */
  readonly name: string;
  readonly description: string;
  /** Kinds the checker must find, exactly; empty = `expect: safe`. */
  readonly expect: readonly ViolationKind[];
  /** Overrides for this variant (lock: its kind, or its key, e.g. a namespaced one). */
  readonly lock?: { readonly kind?: LockKind; readonly key?: string };
  readonly resource?: ResourceOptions;
  readonly sandbox?: Partial<Pick<ScenarioSandbox, 'config'>>;
}

export function isClientStep(step: Step): step is ClientStep {
  return 'client' in step;
}
export function isFaultStep(step: Step): step is FaultStep {
  return 'fault' in step;
}
export function isWaitStep(step: Step): step is WaitStep {
  return 'wait' in step;
}

// Bounds of the derived tolerance: below the floor an ordinary busy machine makes every run
// inconclusive; above the ceiling a late step could reorder the race's own events.
const TOLERANCE_FLOOR_MS = 30;
const TOLERANCE_CEILING_MS = 100;

/**
 * The lateness a variant's race tolerates, in scenario ms: the file's `tolerance`, or a sixth of
 * its shortest lease (half a watchdog's renewal period: a renewal later than that starts to eat
 * into the lease, and the shipped races keep their steps at least that far from a lease's end),
 * kept between 30 and 100 ms.
 */
export function toleranceOf(scenario: Scenario, variant: string): number {
  if (scenario.toleranceMs !== undefined) return scenario.toleranceMs;
  const leases = stepsOf(scenario, variant).flatMap((s) => (isClientStep(s) && s.do === 'acquire' ? [s.leaseMs ?? s.watchdogLeaseMs] : []));
  const shortest = leases.length > 0 ? Math.min(...leases) : TOLERANCE_CEILING_MS * 6;
  return Math.min(TOLERANCE_CEILING_MS, Math.max(TOLERANCE_FLOOR_MS, Math.round(shortest / 6)));
}

// A wait gives up no sooner than this (scenario ms), whatever the variant's leases.
const WAIT_TIMEOUT_FLOOR_MS = 1000;

/**
 * How long a wait step waits before the variant is inconclusive, in scenario ms: its own
 * `timeout`, or the variant's longest lease plus its longest acquire wait (by then every lease
 * set before the wait has run out and every acquire has returned), at least 1 s.
 */
export function waitTimeoutOf(scenario: Scenario, variant: string, wait: WaitFor): number {
  if (wait.timeoutMs !== undefined) return wait.timeoutMs;
  const acquires = stepsOf(scenario, variant).flatMap((s) => (isClientStep(s) && s.do === 'acquire' ? [s] : []));
  const lease = Math.max(0, ...acquires.map((s) => s.leaseMs ?? s.watchdogLeaseMs));
  const longestWait = Math.max(0, ...acquires.map((s) => s.waitMs));
  return Math.max(WAIT_TIMEOUT_FLOOR_MS, lease + longestWait);
}

/** The steps of one variant, in time order. */
export function stepsOf(scenario: Scenario, variant: string): Step[] {
  return scenario.steps.filter((s) => s.only === undefined || s.only.includes(variant));
}
