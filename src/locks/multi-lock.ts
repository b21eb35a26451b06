import { UsageError } from '../core/errors.js';
import { lockChannel } from '../core/names.js';
import { runScript } from '../redis/scripts.js';
import { hashLock } from './hash-lock.js';
import { parseAttempt, parseFlag, parseRelease } from './replies.js';
import { publishCommand, type LockEnv, type LockProtocol, type LockRequest } from './types.js';
import { acquireWaiting, sleepForTtl } from './wait.js';

// Redisson's group multi-lock, getMultiLock(group, values) (docs/lock-formats.md, "Redisson's
// newer objects"): one hash per group, each value locked by its own fields, so owners holding
// disjoint values share the group. Its waiters listen on the RLock channel of the group's name and
// retry when the blocking hold would have ended. The values are the stored field names (Redisson
// hashes each value it is given; `inspect` shows them), so a real client contends with us on
// exactly the fields it writes. Release and renewal act on the values this owner holds when the
// request names none (a later command knows the group and the owner, not what was asked).

/** The values a request names; acquiring needs at least one. */
function valuesOf(req: LockRequest): readonly string[] {
  return req.values ?? [];
}

const tryAcquire = async (env: LockEnv, req: LockRequest) => {
  const values = valuesOf(req);
  if (values.length === 0) throw new UsageError('--kind multi-lock takes the values to lock: pass --values a,b (the field names inspect shows)');
  return parseAttempt(await runScript(env.conn.client, 'multiAcquire', [req.key], [req.leaseMs, env.now(), req.owner, ...values]), 'multi-lock acquire');
};

export const multiLock: LockProtocol = {
  kind: 'multi-lock',
  ownerFormat: 'redisson',
  tryAcquire,
  acquire: acquireWaiting(tryAcquire, (req) => ({ wakeChannel: lockChannel(req.key), retryDelay: sleepForTtl })),
  release: async (env, req) =>
    parseRelease(
      await runScript(env.conn.client, 'multiRelease', [req.key, lockChannel(req.key)], [req.owner, 0, req.leaseMs, publishCommand(env), 0, env.now(), ...valuesOf(req)]),
      'multi-lock release',
    ),
  renew: async (env, req) =>
    parseFlag(await runScript(env.conn.client, 'multiRenew', [req.key], [req.leaseMs, env.now(), req.owner, ...valuesOf(req)]), 'multi-lock renew'),
  // As force-unlock did before this kind existed: the group goes, its waiters hear RLock's message.
  forceUnlock: hashLock('reentrant').forceUnlock,
};
