import { isPythonRedisLockKey, signalKeyOf, SIGNAL_EXPIRE_MS } from '../core/decode/python-redis-lock.js';
import { UsageError } from '../core/errors.js';
import { escapeControls } from '../core/decode/escape.js';
import { runScript } from '../redis/scripts.js';
import { parseFlag, parseRelease } from './replies.js';
import { pollForLock, randomBytesOwner, tokenExtend, tokenTryAcquire } from './token.js';
import type { LockProtocol, LockRequest } from './types.js';

// python-redis-lock's protocol (docs/lock-formats.md, "Python and Go libraries"): `SET lock:<name>
// <id> NX` with an expiry in whole seconds, a release that compares the id and refills the
// `lock-signal:<name>` list its waiters BLPOP on, and a reset that refills it unconditionally.

/** Its keys are `lock:<name>`: any other name is no lock of this library. */
function checked(req: LockRequest): LockRequest {
  checkKey(req.key);
  // Its expiry is whole seconds (`SET ... EX`, `EXPIRE`): a lease in between is rounded up.
  return { ...req, leaseMs: Math.ceil(req.leaseMs / 1000) * 1000 };
}

function checkKey(key: string): void {
  if (!isPythonRedisLockKey(key)) {
    throw new UsageError(
      `python-redis-lock keys are lock:<name>, not "${escapeControls(key)}": pass the key as Redis holds it, e.g. lock:${escapeControls(key)}`,
    );
  }
}

/**
 * Waiters poll at node-redlock's pace rather than BLPOP: a BLPOP of ours would take the one
 * wake-up element a release leaves, which the library's own waiters are blocked for.
 */
export const pythonRedisLock: LockProtocol = {
  kind: 'python-redis-lock',
  ownerFormat: 'token',
  // The library's default id: base64 of 18 random bytes (24 characters).
  tokenOwner: randomBytesOwner(18, 'base64'),
  tryAcquire: async (env, req) => tokenTryAcquire(env.conn.client, checked(req)),
  acquire: async (env, req, opts) => {
    const request = checked(req);
    return pollForLock(env, () => tokenTryAcquire(env.conn.client, request), opts);
  },
  release: async (env, req) =>
    parseRelease(
      await runScript(
        env.conn.client,
        'pyrlRelease',
        [checked(req).key, signalKeyOf(req.key)],
        [req.owner, SIGNAL_EXPIRE_MS],
      ),
      'python-redis-lock release',
    ),
  renew: async (env, req) => tokenExtend(env.conn.client, checked(req)),
  forceUnlock: async (env, key) => {
    checkKey(key);
    return parseFlag(
      await runScript(env.conn.client, 'pyrlForceUnlock', [key, signalKeyOf(key)], [SIGNAL_EXPIRE_MS]),
      'python-redis-lock force unlock',
    );
  },
};
