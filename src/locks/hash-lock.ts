import { fairQueueKey, fencedTokenKey, lockChannel } from '../core/names.js';
import { runScript } from '../redis/scripts.js';
import { parseAttempt, parseFlag, parseRelease } from './replies.js';
import { publishCommand, type LockEnv, type LockProtocol, type LockRequest } from './types.js';
import { acquireWaiting, sleepForTtl } from './wait.js';

/**
 * Redisson's RLock family on one hash: RLock (`reentrant`), RFencedLock (`fenced`, plus a token
 * counter) and RSpinLock (`spin`: no pub/sub, waiters poll with exponential back-off).
 */
export function hashLock(kind: 'reentrant' | 'fenced' | 'spin'): LockProtocol {
  const fenced = kind === 'fenced';
  const spin = kind === 'spin';
  const publish = (env: LockEnv): string => (spin ? '' : publishCommand(env));

  const tryAcquire = async (env: LockEnv, req: LockRequest) =>
    parseAttempt(
      await runScript(env.conn.client, 'lockAcquire', [req.key, fenced ? fencedTokenKey(req.key) : req.key, fairQueueKey(req.key)], [
        req.leaseMs,
        req.owner,
        fenced ? '1' : '0',
      ]),
      `${kind} acquire`,
    );

  return {
    kind,
    ownerFormat: 'redisson',
    tryAcquire,
    acquire: acquireWaiting(tryAcquire, (req) => ({ wakeChannel: spin ? undefined : lockChannel(req.key), retryDelay: spin ? spinBackoff : sleepForTtl })),
    release: async (env, req) =>
      parseRelease(
        await runScript(env.conn.client, 'lockRelease', [req.key, lockChannel(req.key), fairQueueKey(req.key)], [
          req.leaseMs,
          req.owner,
          publish(env),
        ]),
        `${kind} release`,
      ),
    renew: async (env, req) =>
      parseFlag(await runScript(env.conn.client, 'lockRenew', [req.key, fairQueueKey(req.key)], [req.leaseMs, req.owner, 'lock']), `${kind} renew`),
    forceUnlock: async (env, key) =>
      parseFlag(
        await runScript(env.conn.client, 'lockForceUnlock', [key, lockChannel(key), fairQueueKey(key)], [publish(env)]),
        `${kind} force unlock`,
      ),
  };
}

/** RSpinLock's default back-off: 1 ms doubling to 128 ms, plus a random jitter of up to `failures` ms. */
export function spinBackoff(_last: unknown, failures: number): number {
  return Math.min(2 ** (failures - 1), 128) + Math.floor(Math.random() * failures);
}
