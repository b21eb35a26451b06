import { braced, fairQueueKey, rwChannel, rwTimeoutPrefix } from '../core/names.js';
import { writeHolder } from '../core/owner.js';
import { runScript } from '../redis/scripts.js';
import { parseAttempt, parseFlag, parseRelease } from './replies.js';
import { publishCommand, type Attempt, type LockEnv, type LockProtocol, type LockRequest } from './types.js';
import { acquireWaiting, sleepForTtl } from './wait.js';

// Redisson's RReadWriteLock (docs/redisson-protocol.md §2.3): one hash with a `mode` field, readers as
// `<uuid>:<thread>` fields plus one `rwlock_timeout:<n>` key per hold, the writer as `...:write`.
// Both halves wait on `redisson_rwlock:{name}`: a read release publishes 0, a write release 1.

type Half = 'read' | 'write';

/** The scripts return every hash field on refusal; `mode` is lock state, not a holder. */
function withoutMode(attempt: Attempt): Attempt {
  return attempt.acquired ? attempt : { ...attempt, holders: attempt.holders.filter((h) => h.owner !== 'mode') };
}

/** The parts both halves share: waiting on the rw channel with the TTL timer, and force unlock per mode. */
function rwProtocol(
  kind: Half,
  ops: Pick<LockProtocol, 'release' | 'renew'> & {
    readonly attempt: (env: LockEnv, req: LockRequest) => Promise<unknown>;
  },
): LockProtocol {
  const tryAcquire = async (env: LockEnv, req: LockRequest) =>
    withoutMode(parseAttempt(await ops.attempt(env, req), `${kind} acquire`));
  return {
    kind,
    ownerFormat: 'redisson',
    tryAcquire,
    acquire: acquireWaiting(tryAcquire, (req) => ({ wakeChannel: rwChannel(req.key), retryDelay: sleepForTtl })),
    release: ops.release,
    renew: ops.renew,
    forceUnlock: async (env, key) =>
      parseFlag(
        await runScript(env.conn.client, 'rwForceUnlock', [key, rwChannel(key)], [kind, publishCommand(env)]),
        `${kind} force unlock`,
      ),
  };
}

/** `--kind read`: Redisson readLock(). The caller's write name lets a writer also take reads. */
export function readLock(): LockProtocol {
  const timeouts = (req: LockRequest): string => rwTimeoutPrefix(req.key, req.owner);
  return rwProtocol('read', {
    attempt: (env, req) =>
      runScript(env.conn.client, 'rwReadAcquire', [req.key, timeouts(req)], [req.leaseMs, req.owner, writeHolder(req.owner)]),
    // Redisson's read release takes no lease: the hash TTL is recomputed from the timeout keys.
    release: async (env, req) =>
      parseRelease(
        await runScript(
          env.conn.client,
          'rwReadRelease',
          [req.key, rwChannel(req.key), timeouts(req), braced(req.key)],
          [req.owner, publishCommand(env)],
        ),
        'read release',
      ),
    renew: async (env, req) =>
      parseFlag(
        await runScript(env.conn.client, 'rwReadRenew', [req.key, timeouts(req)], [req.leaseMs, req.owner]),
        'read renew',
      ),
  });
}

/** `--kind write`: Redisson writeLock(); the hash field is `<uuid>:<thread>:write`. */
export function writeLock(): LockProtocol {
  return rwProtocol('write', {
    attempt: (env, req) => runScript(env.conn.client, 'rwWriteAcquire', [req.key], [req.leaseMs, writeHolder(req.owner)]),
    release: async (env, req) =>
      parseRelease(
        await runScript(
          env.conn.client,
          'rwWriteRelease',
          [req.key, rwChannel(req.key)],
          [req.leaseMs, writeHolder(req.owner), publishCommand(env)],
        ),
        'write release',
      ),
    // The write lock renews like an RLock: HEXISTS-guarded PEXPIRE of the hash (LockTask).
    renew: async (env, req) =>
      parseFlag(
        await runScript(env.conn.client, 'lockRenew', [req.key, fairQueueKey(req.key)], [req.leaseMs, writeHolder(req.owner), 'write']),
        'write renew',
      ),
  });
}
