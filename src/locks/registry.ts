import { UsageError } from '../core/errors.js';
import { bsmRedislock } from './bsm-redislock.js';
import { fairLock } from './fair.js';
import { hashLock } from './hash-lock.js';
import { multiLock } from './multi-lock.js';
import { pythonRedisLock } from './python-redis-lock.js';
import { redisPyLock } from './redis-py.js';
import { redlockLock } from './redlock.js';
import { readLock, writeLock } from './rw.js';
import { shedLock } from './shedlock.js';
import { springLock } from './spring.js';
import { tokenLock } from './token.js';
import type { LockKind, LockProtocol } from './types.js';

const PROTOCOLS: Partial<Record<LockKind, LockProtocol>> = {
  reentrant: hashLock('reentrant'),
  fenced: hashLock('fenced'),
  spin: hashLock('spin'),
  token: tokenLock,
  redlock: redlockLock,
  fair: fairLock(),
  read: readLock(),
  write: writeLock(),
  spring: springLock,
  shedlock: shedLock,
  'python-redis-lock': pythonRedisLock,
  'bsm-redislock': bsmRedislock,
  'redis-py': redisPyLock,
  'multi-lock': multiLock,
};

// parseKind lives in types.ts (no protocol loads to check a flag); here too for existing callers.
export { parseKind } from './types.js';

export function protocolFor(kind: LockKind): LockProtocol {
  const protocol = PROTOCOLS[kind];
  if (!protocol) throw new UsageError(`lock kind "${kind}" is not available yet`);
  return protocol;
}
