import { UsageError } from '../core/errors.js';
import { fairLock } from './fair.js';
import { hashLock } from './hash-lock.js';
import { redlockLock } from './redlock.js';
import { readLock, writeLock } from './rw.js';
import { tokenLock } from './token.js';
import { LOCK_KINDS, type LockKind, type LockProtocol } from './types.js';

const PROTOCOLS: Partial<Record<LockKind, LockProtocol>> = {
  reentrant: hashLock('reentrant'),
  fenced: hashLock('fenced'),
  spin: hashLock('spin'),
  token: tokenLock,
  redlock: redlockLock,
  fair: fairLock(),
  read: readLock(),
  write: writeLock(),
};

export function parseKind(text: string): LockKind {
  if ((LOCK_KINDS as readonly string[]).includes(text)) return text as LockKind;
  throw new UsageError(`unknown lock kind "${text}": use one of ${LOCK_KINDS.join(', ')}`);
}

export function protocolFor(kind: LockKind): LockProtocol {
  const protocol = PROTOCOLS[kind];
  if (!protocol) throw new UsageError(`lock kind "${kind}" is not available yet`);
  return protocol;
}
