import { fairQueueKey, fairTimeoutKey, fairWaiterChannel, lockChannel } from '../core/names.js';
import { runScript } from '../redis/scripts.js';
import { parseAttempt, parseFlag, parseRelease } from './replies.js';
import { publishCommand, type Attempt, type LockEnv, type LockProtocol, type LockRequest } from './types.js';
import { waitForLock } from './wait.js';

/** Redisson's threadWaitTime (`fairLockWaitTimeout`) since 3.13.3: a waiter's allowance when no wait is given. */
export const REDISSON_THREAD_WAIT_MS = 300_000;

/**
 * How long a queued waiter sleeps when the reply says 0 (the lock is free but someone else is at
 * the head, or the hash has no TTL). Redisson retries at once there, which spins on Redis until a
 * dead head's deadline passes (up to threadWaitTime); we poll gently instead. Wake-ups still come
 * at once through the waiter's own channel.
 */
export const FAIR_IDLE_RETRY_MS = 100;

export interface FairLockOptions {
  /** Allowance (ms) for a waiter that gave no wait: deadlines and the shift on acquisition use it. */
  readonly threadWaitMs?: number;
  /**
   * Every caller queues as Redisson's lock() does: with threadWaitMs as its allowance, whatever its
   * wait (which then only bounds how long it blocks), instead of tryLock(wait)'s allowance = wait.
   */
  readonly blocking?: boolean;
}

/** The fair lock plus its two queue primitives, for scenarios that build queue state step by step. */
export interface FairLockProtocol extends LockProtocol {
  /** One attempt of the queuing variant: joins the queue if refused and stays there (a waiter that died). */
  queuedAttempt(env: LockEnv, req: LockRequest, waitMs: number): Promise<Attempt>;
  /** Redisson's acquireFailed: leaves the queue; true if the owner was queued. */
  acquireFailed(env: LockEnv, req: LockRequest, waitMs: number): Promise<boolean>;
}

/**
 * Redisson's RFairLock: the RLock hash plus a FIFO queue LIST and a ZSET of absolute waiter
 * deadlines. Waiters queue, listen on their own channel and are woken one at a time, in order.
 */
export function fairLock(options: FairLockOptions = {}): FairLockProtocol {
  const threadWaitMs = options.threadWaitMs ?? REDISSON_THREAD_WAIT_MS;
  // Redisson uses the caller's waitTime as the allowance when it is > 0, threadWaitTime otherwise.
  const allowance = (waitMs: number): number => (waitMs > 0 && !options.blocking ? waitMs : threadWaitMs);
  const lockKeys = (key: string): string[] => [key, fairQueueKey(key), fairTimeoutKey(key)];

  const attempt = async (env: LockEnv, req: LockRequest, waitMs: number, queue: boolean): Promise<Attempt> =>
    parseAttempt(
      await runScript(env.conn.client, 'fairAcquire', lockKeys(req.key), [
        req.leaseMs,
        req.owner,
        waitMs,
        env.now(),
        queue ? '1' : '0',
      ]),
      'fair acquire',
    );

  const acquireFailed = async (env: LockEnv, req: LockRequest, waitMs: number): Promise<boolean> =>
    parseFlag(
      await runScript(env.conn.client, 'fairAcquireFailed', [fairQueueKey(req.key), fairTimeoutKey(req.key)], [
        req.owner,
        allowance(waitMs),
        env.now(),
      ]),
      'fair acquire failed',
    );

  return {
    kind: 'fair',
    ownerFormat: 'redisson',
    queuedAttempt: (env, req, waitMs) => attempt(env, req, allowance(waitMs), true),
    acquireFailed,
    tryAcquire: (env, req) => attempt(env, req, threadWaitMs, false),
    acquire: (env, req, opts) =>
      waitForLock(env, {
        attempt: () => attempt(env, req, allowance(opts.waitMs), true),
        waitMs: opts.waitMs,
        signal: opts.signal,
        onRefused: opts.onRefused,
        queuePosition: async () => {
          const at = await env.conn.client.call('LPOS', fairQueueKey(req.key), req.owner);
          return typeof at === 'number' ? at : undefined;
        },
        wakeChannel: fairWaiterChannel(req.key, req.owner),
        retryDelay: (last) => (last.ttlMs > 0 ? last.ttlMs : FAIR_IDLE_RETRY_MS),
        giveUp: async () => {
          await acquireFailed(env, req, opts.waitMs);
        },
      }),
    release: async (env, req) =>
      parseRelease(
        await runScript(env.conn.client, 'fairRelease', [...lockKeys(req.key), lockChannel(req.key)], [
          req.leaseMs,
          req.owner,
          env.now(),
          publishCommand(env),
        ]),
        'fair release',
      ),
    // Only the hash is renewed, as Redisson's watchdog does: queue entries live by their deadlines.
    renew: async (env, req) =>
      parseFlag(await runScript(env.conn.client, 'lockRenew', [req.key, fairQueueKey(req.key)], [req.leaseMs, req.owner, 'fair']), 'fair renew'),
    forceUnlock: async (env, key) =>
      parseFlag(
        await runScript(env.conn.client, 'fairForceUnlock', [...lockKeys(key), lockChannel(key)], [
          env.now(),
          publishCommand(env),
        ]),
        'fair force unlock',
      ),
  };
}
