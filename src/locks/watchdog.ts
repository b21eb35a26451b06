import type { HoldEvent, HoldHolder, HoldMode, LostReason } from '../core/hold-events.js';
import { peekLock } from './peek.js';
import type { LockEnv, LockProtocol, LockRequest } from './types.js';
import { sleep } from '../core/sleep.js';

/** Redisson's lockWatchdogTimeout: the lease the watchdog keeps re-applying. */
export const WATCHDOG_LEASE_MS = 30_000;
/**
 * The shortest --watchdog lease: renewals come every third of it, and below ~100 ms between
 * renewals a loaded machine's late timers let the lease run out while the holder is alive.
 */
export const MIN_WATCHDOG_LEASE_MS = 300;
/** The ownership check runs at least this often, so a force-unlock is noticed within a second. */
export const MAX_CHECK_EVERY_MS = 1000;

// Node timers may fire a millisecond early; renewing a few ms early beats an extra check round trip.
const EARLY_MS = 5;
/**
 * How far before our (conservative) deadline a fixed lease may already be gone from the server:
 * Redis stamps an expiry with the clock it cached at the start of its event-loop turn, and a busy
 * machine can make that several ms older than the moment it ran the command.
 */
const SERVER_CLOCK_SLACK_MS = 50;

export type WatchdogEvent = Extract<HoldEvent, { type: 'renewing' | 'renewed' | 'retrying' }>;

/** How the loop ended: lost (with why), a fixed lease ran out, or stop() was called. */
export type WatchdogEnd =
  | { readonly type: 'lost'; readonly at: number; readonly reason: LostReason; readonly holders?: readonly HoldHolder[] | undefined }
  | { readonly type: 'expired'; readonly at: number }
  | { readonly type: 'stopped'; readonly at: number };

/** What an ownership check saw: whether `owner` holds the key, its PTTL, and who holds it. */
export interface HeldCheck {
  readonly held: boolean;
  readonly ttlMs: number;
  readonly holders: readonly HoldHolder[];
}

export interface WatchdogOptions {
  readonly env: LockEnv;
  readonly protocol: Pick<LockProtocol, 'renew'>;
  /** `leaseMs` is the watchdog lease (renewed) or the fixed lease (only counted down). */
  readonly req: LockRequest;
  readonly mode: HoldMode;
  /** When the acquiring request was sent: the lease runs from then at the latest. */
  readonly leaseStartedAt: number;
  /** Default min(1 s, lease/3). */
  readonly checkEveryMs?: number | undefined;
  /** Default: a read-only peek of the key (a majority of nodes for Redlock). */
  readonly check?: ((env: LockEnv, req: LockRequest) => Promise<HeldCheck>) | undefined;
  readonly onEvent?: ((event: WatchdogEvent) => void) | undefined;
  readonly now?: (() => number) | undefined;
}

export interface Watchdog {
  /** Settles once: lost, expired, or stopped. */
  readonly ended: Promise<WatchdogEnd>;
  readonly renewals: number;
  /** Stops renewing and checking now; a call already on the wire finishes but reports nothing. */
  stop(): void;
}

/**
 * Keeps a held lock alive (watchdog mode: renew every lease/3, like Redisson's LockTask) and
 * watches it (both modes: a cheap ownership check every min(1 s, lease/3)). One setTimeout chain,
 * so Redis calls never overlap. A separate deadline timer fires when the lease must have run out
 * even if a call hangs on a dead connection (ioredis queues commands while reconnecting).
 */
export function startWatchdog(opts: WatchdogOptions): Watchdog {
  const now = opts.now ?? Date.now;
  const { env, req, mode } = opts;
  const lease = req.leaseMs;
  const renewEvery = Math.max(1, Math.floor(lease / 3));
  const checkEvery = opts.checkEveryMs ?? Math.max(1, Math.min(MAX_CHECK_EVERY_MS, renewEvery));
  const check = opts.check ?? checkHeld;

  // The lease is counted from when a request was *sent*: the server's clock started no earlier.
  let deadline = opts.leaseStartedAt + lease;
  let nextRenewAt = mode === 'watchdog' ? opts.leaseStartedAt + renewEvery : Number.POSITIVE_INFINITY;
  let renewals = 0;
  let failures = 0;
  let done = false;
  let tickTimer: NodeJS.Timeout | undefined;
  let deadlineTimer: NodeJS.Timeout | undefined;
  let settle!: (end: WatchdogEnd) => void;
  const ended = new Promise<WatchdogEnd>((resolve) => (settle = resolve));

  const finish = (end: WatchdogEnd): void => {
    if (done) return;
    done = true;
    clearTimeout(tickTimer);
    clearTimeout(deadlineTimer);
    settle(end);
  };
  const emit = (event: WatchdogEvent): void => {
    if (!done) opts.onEvent?.(event);
  };

  const armDeadline = (): void => {
    clearTimeout(deadlineTimer);
    deadlineTimer = setTimeout(
      () => finish(mode === 'fixed' ? { type: 'expired', at: now() } : { type: 'lost', at: now(), reason: 'lease-ran-out' }),
      Math.max(0, deadline - now()),
    );
  };

  const schedule = (delay: number): void => {
    if (!done) tickTimer = setTimeout(() => void tick(), Math.max(0, delay));
  };

  const tick = async (): Promise<void> => {
    if (done) return;
    const sentAt = now();
    try {
      if (sentAt >= nextRenewAt - EARLY_MS) {
        emit({ type: 'renewing', at: sentAt });
        const renewed = await opts.protocol.renew(env, req);
        if (done) return;
        if (!renewed) return finish({ type: 'lost', at: now(), reason: 'renewal-refused', holders: await holdersNow(env, req, check) });
        renewals += 1;
        deadline = sentAt + lease;
        nextRenewAt = sentAt + renewEvery;
        armDeadline();
        emit({ type: 'renewed', at: sentAt, ttlMs: lease, renewals });
      } else {
        const seen = await check(env, req);
        if (done) return;
        if (!seen.held) {
          // Gone with nobody else in it when the lease was due to end: an expiry (this check and the
          // deadline timer were due together, and the check ran first), not a force-unlock.
          const dueToEnd = mode === 'fixed' && sentAt >= deadline - SERVER_CLOCK_SLACK_MS;
          if (dueToEnd && seen.holders.length === 0) return finish({ type: 'expired', at: now() });
          return finish({ type: 'lost', at: now(), reason: 'gone', holders: seen.holders });
        }
        // A fixed lease ends when the server says: calibrate the local deadline by its PTTL.
        if (mode === 'fixed' && seen.ttlMs >= 0 && sentAt + seen.ttlMs < deadline) {
          deadline = sentAt + seen.ttlMs;
          armDeadline();
        }
      }
      failures = 0;
      const t = now();
      schedule(Math.min(nextRenewAt, t + checkEvery, deadline) - t);
    } catch (err) {
      if (done) return;
      // Redis answered with an error or the connection broke: back off (100 ms doubling, at most
      // one check period) and keep trying until the deadline timer declares the lease gone.
      failures += 1;
      const retryInMs = Math.min(checkEvery, 100 * 2 ** Math.min(failures - 1, 10));
      emit({ type: 'retrying', at: now(), error: err instanceof Error ? err.message : String(err), retryInMs });
      schedule(retryInMs);
    }
  };

  armDeadline();
  schedule(Math.min(nextRenewAt, now() + checkEvery, deadline) - now());
  return {
    ended,
    get renewals() {
      return renewals;
    },
    stop: () => finish({ type: 'stopped', at: now() }),
  };
}

async function holdersNow(env: LockEnv, req: LockRequest, check: NonNullable<WatchdogOptions['check']>) {
  try {
    return (await check(env, req)).holders;
  } catch {
    return undefined; // only decoration for the "lost" message
  }
}

/** Does this peek's holder list include `owner` (a write lock stores `<owner>:write`)? */
export const holdsIn = (holders: readonly HoldHolder[], owner: string): boolean =>
  holders.some((h) => h.owner === owner || h.owner === `${owner}:write`);

/**
 * The default ownership check: one read-only peek (no renewal, so a fixed lease is not extended).
 * For multi-node Redlock the lock is ours while a majority of the nodes still has our token.
 */
export async function checkHeld(env: LockEnv, req: LockRequest): Promise<HeldCheck> {
  if (env.nodes.length === 0) {
    const peek = await peekLock(env, req.key);
    return { held: holdsIn(peek.holders, req.owner), ttlMs: peek.ttlMs, holders: peek.holders };
  }
  const peeks = await Promise.all(env.nodes.map((conn) => peekLock({ ...env, conn }, req.key)));
  const ours = peeks.filter((p) => holdsIn(p.holders, req.owner));
  const held = ours.length > env.nodes.length / 2;
  const ttls = ours.map((p) => p.ttlMs).filter((t) => t >= 0);
  const others = peeks.find((p) => p.holders.length > 0 && !holdsIn(p.holders, req.owner));
  return {
    held,
    ttlMs: ttls.length > 0 ? Math.min(...ttls) : -1,
    holders: held ? (ours[0]?.holders ?? []) : (others?.holders ?? []),
  };
}

/**
 * After a fixed lease's (conservative) local deadline: waits until Redis has really expired the
 * key, so "free again" is true when we say it. Bounded: gives up after `maxWaitMs`.
 */
export async function untilExpired(env: LockEnv, req: LockRequest, maxWaitMs = 1000, check = checkHeld): Promise<void> {
  const until = Date.now() + maxWaitMs;
  while (Date.now() < until) {
    const seen = await check(env, req);
    if (!seen.held || seen.ttlMs < 0) return; // gone, or someone removed the TTL: waiting won't help
    await sleep(Math.min(seen.ttlMs + 1, until - Date.now()));
  }
}
