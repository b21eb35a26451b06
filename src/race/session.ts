// One race client's lock: our protocols (src/locks) behind a small interface, so the same
// client loop can also drive other libraries (the benchmark plugs in node-redlock and
// node-redisson). Renewals run through the shared watchdog unless --no-renew.

import type { RaceKind, ReleaseMode } from '../core/race/plan.js';
import { lockChannel, rwChannel } from '../core/names.js';
import { closeLockEnv, openLockEnv, type OpenLockEnv } from '../locks/env.js';
import { newOwner } from '../locks/owners.js';
import { protocolFor } from '../locks/registry.js';
import type { LockRequest } from '../locks/types.js';
import { startWatchdog, type Watchdog } from '../locks/watchdog.js';
import type { TargetSpec } from '../redis/target.js';
import { ServerTiming } from './server-timing.js';

/** What an acquisition gave the client. */
export interface Grant {
  /** Fencing token (fenced locks). */
  readonly token?: number | undefined;
  /** The lease (Redlock: its validity) the client believes it has from now. */
  readonly leaseMs: number;
  /** On the server's clock: from the first attempt of this acquire to the one that took the lock (ms). */
  readonly serverWaitMs?: number | undefined;
}

/** What a release found. */
export interface Released {
  /**
   * `released` / `decremented`; `not-owner`: the lock was no longer this client's. A naive DEL
   * also says `deleted-other` (it removed another client's lock) or `gone` (nobody's).
   */
  readonly outcome: string;
  /** On the server's clock: from the acquisition to this release, or to the lease's end if it ran out first (ms). */
  readonly serverHoldMs?: number | undefined;
}

export interface LockSession {
  /** Waits up to waitMs as the library does, calling onRefused after each refused attempt; undefined when not acquired in time. */
  acquire(waitMs: number, signal: AbortSignal, onRefused?: () => void): Promise<Grant | undefined>;
  release(): Promise<Released>;
  /** A simulated process pause: renewals stop until thaw(), like every other thread of a frozen process. */
  freeze(): void;
  thaw(): void;
  /** The process died: sockets dropped now, no release, no QUIT. */
  crash(): void;
  close(): Promise<void>;
}

export interface SessionHooks {
  /** The watchdog found the lock gone (or a fixed lease ran out) before release. */
  readonly onLost: (reason: string) => void;
}

/** Creates one client's lock session (its own connections and owner identity). */
export type SessionFactory = (client: { readonly name: string; readonly key: string }, hooks: SessionHooks) => Promise<LockSession>;

/** Everything our lock sessions need; plain data, so it crosses to worker processes as is. */
export interface SessionConfig {
  readonly kind: RaceKind;
  readonly target: TargetSpec;
  /** Redlock: the independent primaries. */
  readonly nodes?: readonly TargetSpec[] | undefined;
  readonly leaseMs: number;
  readonly release: ReleaseMode;
  readonly renew: boolean;
}

/** Where an owner-checked release would have published its unlock message. */
const WAKE_CHANNEL: Partial<Record<RaceKind, (key: string) => string>> = { reentrant: lockChannel, fenced: lockChannel, write: rwChannel };

/** Sessions on our own protocols: one lock environment (connections) per client. */
export function protocolSessions(config: SessionConfig): SessionFactory {
  const protocol = protocolFor(config.kind);
  return async (client, hooks) => {
    const env = await openLockEnv(config.target, {
      mode: 'long-lived',
      name: `redlock-cli:race:${client.name}`,
      pubsub: 'auto',
      nodes: config.nodes,
    });
    return new ProtocolSession(env, protocol, { key: client.key, owner: newOwner(protocol), leaseMs: config.leaseMs }, config, hooks);
  };
}

class ProtocolSession implements LockSession {
  private watchdog: Watchdog | undefined;
  private holding = false;
  private frozen = false;
  private grantedAt = 0;
  // Redlock's nodes each keep their own clock: its waits and holds are timed at the client only.
  private readonly timing: ServerTiming;

  constructor(
    private readonly env: OpenLockEnv,
    private readonly protocol: ReturnType<typeof protocolFor>,
    private readonly req: LockRequest,
    private readonly config: SessionConfig,
    private readonly hooks: SessionHooks,
  ) {
    this.timing = new ServerTiming(req.leaseMs, env.nodes.length === 0);
  }

  async acquire(waitMs: number, signal: AbortSignal, onRefused?: () => void): Promise<Grant | undefined> {
    const { value: attempt, serverWaitMs } = await this.timing.acquire(
      () => this.protocol.acquire(this.env, this.req, { waitMs, signal, onRefused }),
      (a) => a.acquired,
    );
    // The last attempt, refused when the wait ran out, is reported by the wait loop only while it waits.
    if (!attempt.acquired && waitMs <= 0) onRefused?.();
    if (!attempt.acquired) return undefined;
    this.holding = true;
    this.grantedAt = Date.now();
    if (!this.frozen) this.watch(this.grantedAt);
    return { token: attempt.token, leaseMs: attempt.validityMs ?? this.req.leaseMs, serverWaitMs };
  }

  /** Renewals (or, with --no-renew, ownership checks) from `leaseStartedAt`, reporting a loss once. */
  private watch(leaseStartedAt: number): void {
    const watchdog = startWatchdog({
      env: this.env,
      protocol: { renew: (env, req) => this.timing.renew(() => this.protocol.renew(env, req)) },
      req: this.req,
      mode: this.config.renew ? 'watchdog' : 'fixed',
      leaseStartedAt,
    });
    this.watchdog = watchdog;
    void watchdog.ended.then((end) => {
      if (end.type === 'stopped' || this.watchdog !== watchdog) return;
      this.hooks.onLost(end.type === 'expired' ? 'the lease ran out' : end.reason);
    });
  }

  release(): Promise<Released> {
    this.stopWatch();
    this.holding = false;
    return this.timing.release(() => (this.config.release === 'naive-del' ? this.naiveDelete() : this.protocol.release(this.env, this.req)));
  }

  /**
   * A plain DEL, whoever holds the lock now; Redisson waiters are woken as an unlock would. The
   * old value is read in the same MULTI only to report whose lock went (`deleted-other`: someone
   * else's, `gone`: nobody's), which the naive client itself never looks at.
   */
  private async naiveDelete(): Promise<string> {
    const conns = this.env.nodes.length > 0 ? this.env.nodes : [this.env.conn];
    const string = this.protocol.ownerFormat === 'token';
    const olds = await Promise.all(
      conns.map(async (c) => {
        const tx = string ? c.client.multi().get(this.req.key) : c.client.multi().hkeys(this.req.key);
        const replies = await tx.del(this.req.key).exec();
        return replies?.[0]?.[1];
      }),
    );
    // A fair lock's waiters listen on their own channels and find out by their queue timers.
    const channel = WAKE_CHANNEL[this.config.kind]?.(this.req.key);
    if (channel !== undefined) await this.env.conn.client.publish(channel, '0');
    const mine = (old: unknown): boolean =>
      old === this.req.owner || (Array.isArray(old) && old.some((f) => f === this.req.owner || f === `${this.req.owner}:write`));
    const empty = (old: unknown): boolean => old === null || old === undefined || (Array.isArray(old) && old.length === 0);
    if (olds.some(mine)) return 'released';
    return olds.every(empty) ? 'gone' : 'deleted-other';
  }

  freeze(): void {
    this.frozen = true;
    this.stopWatch();
  }

  thaw(): void {
    if (!this.frozen) return;
    this.frozen = false;
    if (!this.holding) return;
    // A resumed process finds its renewal overdue and sends it at once; a fixed lease keeps its deadline.
    this.watch(this.config.renew ? Date.now() - Math.floor(this.req.leaseMs / 3) : this.grantedAt);
  }

  crash(): void {
    this.stopWatch();
    for (const conn of this.connections()) conn.client.disconnect();
    // Runs the subscriber connection's closer too; QUIT on the dropped socket fails and is ignored.
    void this.env.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.stopWatch();
    // A server that is away (partitioned, killed) must not hang the race's end.
    await closeLockEnv(this.env);
  }

  private connections() {
    return this.env.nodes.length > 0 ? this.env.nodes : [this.env.conn];
  }

  private stopWatch(): void {
    const watchdog = this.watchdog;
    this.watchdog = undefined;
    watchdog?.stop();
  }
}
