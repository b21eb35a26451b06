/** The shapes a sandbox is described by: its state file, its nodes, and what callers may plug in. */

export const TOPOLOGIES = ['single', 'replicated', 'sentinel', 'redlock', 'cluster'] as const;
export type TopologyName = (typeof TOPOLOGIES)[number];

/** What a node was started as; the live role (after a failover) comes from status(). */
export type NodeRole = 'primary' | 'replica' | 'sentinel';

/** What the supervisor did to a node last: `running` until a fault verb says otherwise. */
export type NodeState = 'running' | 'paused' | 'killed';

/** A proxy in front of a node (see ProxyHook); clients should use `port`, not the node's. */
export interface ProxyRecord {
  readonly port: number;
  /** Set when the proxy is its own process: `down` kills it after checking its cmdline names the sandbox dir. */
  readonly pid?: number;
}

/** One node as the state file records it. */
export interface NodeRecord {
  readonly name: string;
  readonly role: NodeRole;
  readonly port: number;
  readonly pid: number;
  /** ISO time the current process was started (changes on restart). */
  readonly startedAt: string;
  readonly state: NodeState;
  /** The node it was started to replicate from (replicas only). */
  readonly replicaOf?: string;
  /** Extra environment the process runs with (e.g. LD_PRELOAD / FAKETIME for clock faults). */
  readonly env?: Readonly<Record<string, string>>;
  readonly proxy?: ProxyRecord;
  /** A replica's stall-replication ends by itself at this time (epoch ms); heal or a restart ends it early. */
  readonly stalledUntil?: number;
}

/** `<dir>/sandbox.json`: everything a later CLI invocation needs to re-attach, check and clean up. */
export interface SandboxState {
  readonly version: 1;
  readonly name: string;
  readonly topology: TopologyName;
  readonly dir: string;
  readonly redisServer: string;
  readonly createdAt: string;
  /** `starting` until the topology is formed; a `starting` state whose supervisor died is stale. */
  readonly status: 'starting' | 'up';
  readonly supervisorPid: number;
  /** Sentinel topology: the monitored master's name. */
  readonly masterName?: string;
  /** Sentinel topology: faults before this time (epoch ms) would race the sentinels' own start-up flapping. */
  readonly settledAt?: number;
  /** Sentinel topology: when the last failover by this tool completed (epoch ms). */
  readonly lastFailoverAt?: number;
  readonly nodes: readonly NodeRecord[];
}

/** What a proxy hook gets to know about a node it should sit in front of. */
export interface ProxyTarget {
  readonly sandbox: string;
  readonly dir: string;
  readonly node: string;
  readonly port: number;
}

/**
 * Plugs a TCP fault proxy in front of every redis node (`up --proxy`). `start` is called once per
 * node after it answers PING; `stop` (optional) when the sandbox is stopped. A proxy that runs as
 * its own process returns its pid so `down` from another invocation can stop it too.
 */
export interface ProxyHook {
  start(target: ProxyTarget): Promise<ProxyRecord>;
  stop?(target: ProxyTarget, proxy: ProxyRecord): Promise<void>;
}

export interface StartOptions {
  readonly topology: TopologyName;
  /** Sandbox name (letters, digits, - and _); default `default`. */
  readonly name?: string | undefined;
  /** Number of primaries for `redlock` (default 5). */
  readonly nodes?: number | undefined;
  /** Replicas per primary for `cluster` (0 or 1, default 0). */
  readonly replicas?: number | undefined;
  /** Directory holding sandboxes (default `<stateDir>/sandboxes`); this one lives in `<dir>/<name>`. */
  readonly dir?: string | undefined;
  /** redis-server binary (default: found on PATH). */
  readonly redisServer?: string | undefined;
  /** Environment to resolve PATH and the state dir from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Extra environment per node name, e.g. `{ n1: { FAKETIME: '+0 x10' } }`. */
  readonly nodeEnv?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly proxy?: ProxyHook | undefined;
  /**
   * Keep the servers running when this process exits (the CLI's `up`). Otherwise (tests, scripts)
   * whatever is still running is SIGKILLed on exit, so a crashed caller leaves nothing behind.
   */
  readonly persist?: boolean | undefined;
  /** Aborting stops everything started so far and rejects with an InterruptedError. */
  readonly signal?: AbortSignal | undefined;
  /** Progress lines for a terminal ("starting n1 on 127.0.0.1:40001"). */
  readonly onProgress?: ((line: string) => void) | undefined;
}
