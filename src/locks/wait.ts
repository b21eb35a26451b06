import { beforeDeadline } from '../core/deadline.js';
import { InterruptedError } from '../core/errors.js';
import { sleep } from '../core/sleep.js';
import { subscribeWake, type WakeSubscription } from '../redis/pubsub.js';
import type { Attempt, LockEnv, LockRequest, WaitOptions, WaitProgress } from './types.js';

type Refused = Extract<Attempt, { acquired: false }>;

export interface WaitPlan {
  /** One acquisition attempt (the queuing variant for fair locks). */
  readonly attempt: () => Promise<Attempt>;
  readonly waitMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Channel whose messages mean "try again now"; none for polling protocols (spin, token). */
  readonly wakeChannel?: string | undefined;
  /** How long to sleep before the next attempt if no message comes (Infinity: only a message). */
  readonly retryDelay: (last: Refused, failures: number) => number;
  /** Cleanup when giving up (the fair lock leaves its queue). */
  readonly giveUp?: (() => Promise<void>) | undefined;
  /** Told after each refused attempt while waiting (a live "who holds it" line). */
  readonly onRefused?: ((progress: WaitProgress) => void) | undefined;
  /** Fair locks: our place in the queue, read only when someone listens to onRefused. */
  readonly queuePosition?: (() => Promise<number | undefined>) | undefined;
}

async function report(plan: WaitPlan, last: Refused): Promise<void> {
  if (!plan.onRefused) return;
  // The position is for the eye only: a failed read must not end the wait.
  const queuePosition = plan.queuePosition ? await plan.queuePosition().catch(() => undefined) : undefined;
  plan.onRefused({ holders: last.holders, ttlMs: last.ttlMs, queuePosition });
}

/**
 * Redisson's tryLock(wait) loop: try; subscribe; then try again, and sleep until a wake-up message
 * or the TTL timer, until acquired or the wait runs out. Aborting (Ctrl-C) gives up cleanly and
 * throws InterruptedError.
 */
export async function waitForLock(env: LockEnv, plan: WaitPlan): Promise<Attempt> {
  const started = Date.now();
  let last = await plan.attempt();
  if (last.acquired || plan.waitMs <= 0) {
    if (!last.acquired) await plan.giveUp?.();
    return last;
  }
  let sub: WakeSubscription | undefined;
  let failures = 0;
  const lost = wakeOnConnectionEnd(env, plan.signal);
  await report(plan, last);
  try {
    if (plan.wakeChannel !== undefined) {
      sub = await subscribeWake(env.conn, plan.wakeChannel, env.pubsub === 'sharded');
    }
    // With a wake channel, try again right after subscribing (a release may have happened in
    // between, as Redisson does); a polling protocol sleeps first instead of asking twice.
    for (let retryNow = sub !== undefined; ; retryNow = false) {
      if (!retryNow) {
        const remaining = plan.waitMs - (Date.now() - started);
        if (remaining <= 0) return last;
        failures += 1;
        const delay = Math.min(plan.retryDelay(last, failures), remaining);
        if (sub) await sub.next(delay, lost.signal);
        else await sleep(delay, lost.signal);
      }
      if (plan.signal?.aborted) throw new InterruptedError('interrupted while waiting for the lock');
      last = await plan.attempt();
      if (last.acquired) return last;
      await report(plan, last);
    }
  } finally {
    lost.dispose();
    const leave = async (): Promise<void> => {
      await sub?.close();
      if (!last.acquired) await plan.giveUp?.();
    };
    const replyTimeoutMs = env.conn.replyTimeoutMs;
    await leaveWithin(leave(), replyTimeoutMs === undefined ? undefined : started + plan.waitMs + replyTimeoutMs - Date.now());
  }
}

/**
 * Leaving the wait (UNSUBSCRIBE, the fair queue's exit) waits on Redis only until --wait plus one
 * --timeout has passed since the wait began: when the last attempt timed out on a paused server,
 * each of these would otherwise cost one more --timeout. Past that they finish unobserved (the
 * connection is closed next); with no reply timeout they are waited for.
 */
async function leaveWithin(leaving: Promise<void>, ms: number | undefined): Promise<void> {
  leaving.catch(() => undefined); // a failure after the deadline has nobody left to tell
  await beforeDeadline(leaving, ms, () => undefined);
}

/**
 * Aborts when `signal` does or when a single-target connection ends for good (a one-shot
 * connection does not reconnect), so a waiter whose server died tries once more at once and fails
 * with "lost the connection" instead of sleeping out its whole --wait. Redlock tolerates a
 * minority of dead nodes, so its waits keep their timer.
 */
function wakeOnConnectionEnd(env: LockEnv, signal: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  const ended = new AbortController();
  const onEnd = (): void => ended.abort();
  const client = env.nodes.length === 0 ? env.conn.client : undefined;
  client?.once('end', onEnd);
  return {
    signal: signal ? AbortSignal.any([signal, ended.signal]) : ended.signal,
    dispose: () => void client?.off('end', onEnd),
  };
}


/** Redisson's waiter sleeps for the returned TTL, or only for a message when the key has no TTL. */
export const sleepForTtl = (last: Refused): number => (last.ttlMs >= 0 ? last.ttlMs : Number.POSITIVE_INFINITY);

/** A protocol's `acquire`: its one attempt, retried the way its library waits (wake channel, pacing). */
export function acquireWaiting(
  tryAcquire: (env: LockEnv, req: LockRequest) => Promise<Attempt>,
  pacing: (req: LockRequest) => Pick<WaitPlan, 'wakeChannel' | 'retryDelay'>,
): (env: LockEnv, req: LockRequest, opts: WaitOptions) => Promise<Attempt> {
  return (env, req, opts) =>
    waitForLock(env, { attempt: () => tryAcquire(env, req), waitMs: opts.waitMs, signal: opts.signal, onRefused: opts.onRefused, ...pacing(req) });
}
