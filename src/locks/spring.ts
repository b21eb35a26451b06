import { randomUUID } from 'node:crypto';
import { SPRING_DEFAULT_EXPIRE_MS, springUnlockChannels } from '../core/decode/spring.js';
import { runScript } from '../redis/scripts.js';
import { parseAttempt, parseFlag } from './replies.js';
import type { LockEnv, LockProtocol, LockRequest } from './types.js';
import { acquireWaiting, sleepForTtl } from './wait.js';

// Spring Integration's RedisLockRegistry (docs/lock-formats.md): the owner is the registry's
// client id (a UUID); PUB_SUB_LOCK registries learn of a release from a message carrying the key.

const tryAcquire = async (env: LockEnv, req: LockRequest) =>
  parseAttempt(await runScript(env.conn.client, 'springAcquire', [req.key], [req.owner, req.leaseMs]), 'spring acquire');

/**
 * A RedisLockRegistry client: acquires like its obtain script (re-entering its own client id),
 * waits like a PUB_SUB_LOCK registry (an unlock message, or the lock's TTL running out), and
 * releases and force-unlocks with the message PUB_SUB_LOCK waiters listen for.
 */
export const springLock: LockProtocol = {
  kind: 'spring',
  ownerFormat: 'token',
  tokenOwner: { fresh: () => randomUUID(), forClient: (uuid) => uuid },
  defaultLeaseMs: SPRING_DEFAULT_EXPIRE_MS,
  tryAcquire,
  // A registry publishes on every channel we might listen on; the first split is the usual one.
  acquire: acquireWaiting(tryAcquire, (req) => ({ wakeChannel: springUnlockChannels(req.key)[0], retryDelay: sleepForTtl })),
  release: async (env, req) =>
    parseFlag(await runScript(env.conn.client, 'springRelease', [req.key], [req.owner, ...springUnlockChannels(req.key)]), 'spring release')
      ? 'released'
      : 'not-owner',
  renew: async (env, req) => parseFlag(await runScript(env.conn.client, 'springRenew', [req.key], [req.owner, req.leaseMs]), 'spring renew'),
  forceUnlock: async (env, key) => parseFlag(await runScript(env.conn.client, 'springForceUnlock', [key], springUnlockChannels(key)), 'spring force unlock'),
};
