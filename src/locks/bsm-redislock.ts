import { BSM_TOKEN_LENGTH } from '../core/decode/bsm.js';
import { runScript } from '../redis/scripts.js';
import { parseAttempt, parseFlag, parseRelease } from './replies.js';
import { pollForLock, randomBytesOwner, tokenDelete } from './token.js';
import type { LockProtocol, LockRequest } from './types.js';

// bsm/redislock's protocol (docs/lock-formats.md, "Python and Go libraries"), v0.10.0's scripts
// in our words: obtain takes the key only when free, or re-obtains it for the same token; refresh
// and release act only when the key holds the caller's whole value. Its waiters poll (its
// RetryStrategy), and its release wakes nobody: force-unlock is a plain delete.

/** The value's token part: 22 characters by default; a shorter custom token is all token. */
const tokenLength = (owner: string): number => Math.min(owner.length, BSM_TOKEN_LENGTH);

const obtain = async (env: Parameters<LockProtocol['tryAcquire']>[0], req: LockRequest) =>
  parseAttempt(
    await runScript(env.conn.client, 'bsmObtain', [req.key], [req.owner, tokenLength(req.owner), req.leaseMs]),
    'bsm-redislock obtain',
  );

export const bsmRedislock: LockProtocol = {
  kind: 'bsm-redislock',
  ownerFormat: 'token',
  // Its default token: 16 random bytes, URL-safe base64 without padding (22 characters).
  tokenOwner: randomBytesOwner(16, 'base64url'),
  tryAcquire: obtain,
  acquire: (env, req, opts) => pollForLock(env, () => obtain(env, req), opts),
  release: async (env, req) =>
    parseRelease(await runScript(env.conn.client, 'bsmRelease', [req.key], [req.owner]), 'bsm-redislock release'),
  renew: async (env, req) =>
    parseFlag(
      await runScript(env.conn.client, 'bsmRefresh', [req.key], [req.owner, req.leaseMs]),
      'bsm-redislock refresh',
    ),
  forceUnlock: (env, key) => tokenDelete(env.conn.client, key),
};
