import { createHash, randomBytes } from 'node:crypto';
import { compareAndDelete } from '../redis/compare-and-delete.js';
import type { RedisClient } from '../redis/connection.js';
import { runScript } from '../redis/scripts.js';
import { parseAttempt, parseFlag } from './replies.js';
import type { Attempt, LockEnv, LockProtocol, LockRequest, TokenOwnerFormat, WaitOptions } from './types.js';
import { waitForLock } from './wait.js';

/**
 * node-redlock's default retry pacing (v5 source: retryDelay 200, retryJitter 100): each retry
 * sleeps 200 ms ± 100 ms, i.e. uniformly 100..300 ms.
 */
/**
 * A library's random-bytes token: `bytes` random bytes in `encoding` when fresh; for a REPL client,
 * the same number of bytes of its UUID's SHA-256, so its locks stay its own across lines.
 */
export function randomBytesOwner(bytes: number, encoding: 'base64' | 'base64url'): TokenOwnerFormat {
  return {
    fresh: () => randomBytes(bytes).toString(encoding),
    forClient: (uuid) => createHash('sha256').update(uuid).digest().subarray(0, bytes).toString(encoding),
  };
}

export const NODE_REDLOCK_RETRY = { delayMs: 200, jitterMs: 100 } as const;

/** One retry sleep exactly as node-redlock draws it: `max(0, delay + floor((rand*2-1) * jitter))`. */
export function nodeRedlockRetryDelay(random: () => number = Math.random): number {
  const { delayMs, jitterMs } = NODE_REDLOCK_RETRY;
  return Math.max(0, delayMs + Math.floor((random() * 2 - 1) * jitterMs));
}

/** A token library's wait: no channel to listen on, so `attempt` is retried every `retryDelay()`. */
export function pollForLock(env: LockEnv, attempt: () => Promise<Attempt>, opts: WaitOptions, retryDelay = nodeRedlockRetryDelay): Promise<Attempt> {
  return waitForLock(env, { attempt, waitMs: opts.waitMs, signal: opts.signal, onRefused: opts.onRefused, retryDelay: () => retryDelay() });
}

// Single-key primitives on one client; redlock.ts runs the same ones on every node.

/** SET token NX PX lease as node-redlock does (refused whenever the key exists). */
export async function tokenTryAcquire(client: RedisClient, req: LockRequest): Promise<Attempt> {
  return parseAttempt(await runScript(client, 'tokenAcquire', [req.key], [req.owner, req.leaseMs]), 'token acquire');
}

/** Compare-and-delete: true released, false the key no longer holds this token. */
export function tokenRelease(client: RedisClient, req: LockRequest): Promise<boolean> {
  return compareAndDelete(client, req.key, req.owner);
}

/** Compare-and-extend to a fresh lease: false means the lock is lost. */
export async function tokenExtend(client: RedisClient, req: LockRequest): Promise<boolean> {
  return parseFlag(await runScript(client, 'tokenExtend', [req.key], [req.owner, req.leaseMs]), 'token extend');
}

/** Deletes a token lock whoever holds it (refuses keys of other types). */
export async function tokenDelete(client: RedisClient, key: string): Promise<boolean> {
  return parseFlag(await runScript(client, 'tokenForceUnlock', [key], []), 'token force unlock');
}

/**
 * node-redlock / redsync / redis-py single-key lock: a string holding the owner's random token,
 * with PX expiry. Waiters poll (there is no unlock channel), paced like node-redlock's retries.
 */
export const tokenLock: LockProtocol = {
  kind: 'token',
  ownerFormat: 'token',
  tryAcquire: (env, req) => tokenTryAcquire(env.conn.client, req),
  acquire: (env, req, opts) => pollForLock(env, () => tokenTryAcquire(env.conn.client, req), opts),
  release: async (env, req) => ((await tokenRelease(env.conn.client, req)) ? 'released' : 'not-owner'),
  renew: (env, req) => tokenExtend(env.conn.client, req),
  forceUnlock: (env, key) => tokenDelete(env.conn.client, key),
};
