import type { InspectKind } from '../lock-view.js';
import { COMPANION_TYPE, companionOf } from './companions.js';
import { hashField, isHolderEntry } from './holders.js';
import { LOCK_LIKE } from './lock-like.js';
import { isMultiLockBody } from './multi-lock.js';
import { isRateLimiterBody } from './rate-limiter.js';
import type { RawSnapshot } from './raw.js';
import { tokenLibrary, WITHOUT_DEFAULT_EXPIRY, type TokenLibrary } from './token-library.js';

// What the data says a key is (docs/redisson-protocol.md §4, docs/lock-formats.md). Strings are the hard
// case, decided in this order:
//   (hashes: a `mode` field is rw; group multi-lock fields; rate, interval, type: rate-limiter)
//   integer + `{name}:timeout` zset                        expirable-semaphore
//   integer, latch channel has subscribers, semaphore not  latch
//   integer, semaphore channel has subscribers             semaphore
//   integer, no TTL                                         semaphore (or a latch: --kind latch)
//   integer, TTL, lock-like name                            token (`SET lock 1 NX PX`)
//   integer, TTL, other name                                not-a-lock (a counter with a TTL)
//   TTL, value in a known library's format                  token
//   TTL, other value, lock-like name                        token (library unknown)
//   no TTL, key and value in python-redis-lock's format     token (its default has no TTL)
//   either of the last two without TTL                      not-a-lock, `tokenWithoutExpiry`
//   anything else                                           not-a-lock
// Token libraries set a TTL (python-redis-lock, only when asked), and application data often
// has the same shapes (a session id is a UUID, an MD5 is 32 hex): without a TTL the shape alone
// never makes a string a lock; python-redis-lock's key prefix and id form together do.
// Where another reading is possible it is named in `alternatives`, and --kind picks it.

export interface Recognition {
  readonly kind: InspectKind;
  readonly alternatives?: readonly InspectKind[];
  /**
   * The alternatives store exactly this data and read it the same way, so no --kind would show
   * anything more: only the name is uncertain (a Redisson lock hash without queue keys is a
   * reentrant lock, or a fair lock with nobody waiting, whose queue keys Redisson deletes).
   */
  readonly sameReading?: true;
  /**
   * A TTL-less string that would be a token lock if it had a TTL: the library whose value format
   * it has ('unknown': only its name is lock-like). It could be a lock set without expiry (the
   * SETNX+EXPIRE crash); it is read as data, and only `force-unlock --kind token` acts on it.
   */
  readonly tokenWithoutExpiry?: TokenLibrary;
}

const INTEGER = /^-?\d+$/;
const RS_MEMBER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(_\d+)?$/i;

const hasFairCompanions = (raw: RawSnapshot): boolean => raw.queueLength > 0 || raw.deadlineCount > 0;

/** Every field except `mode` is a holder (`<uuid>:<id>` → positive count). */
function holdersOnly(body: readonly string[]): boolean {
  for (let i = 0; i + 1 < body.length; i += 2) {
    if (body[i] !== 'mode' && !isHolderEntry(body[i]!, body[i + 1]!)) return false;
  }
  return true;
}

function recognizeHash(raw: RawSnapshot): Recognition {
  const mode = hashField(raw.body, 'mode');
  if (mode !== undefined) return { kind: (mode === 'read' || mode === 'write') && holdersOnly(raw.body) ? 'rw' : 'not-a-lock' };
  if (isMultiLockBody(raw.body)) return { kind: 'multi-lock' };
  if (isRateLimiterBody(raw.body)) return { kind: 'rate-limiter' };
  if (raw.body.length === 0 || !holdersOnly(raw.body)) return { kind: 'not-a-lock' };
  if (hasFairCompanions(raw)) return { kind: 'fair' };
  if (raw.counter !== undefined) return { kind: 'fenced' };
  return { kind: 'reentrant', alternatives: ['fair'], sameReading: true };
}

function recognizeString(raw: RawSnapshot): Recognition {
  const value = raw.body[0];
  if (value === undefined) return { kind: 'not-a-lock' };
  const lockLike = LOCK_LIKE.test(raw.key);
  if (INTEGER.test(value)) {
    if (raw.permitCount > 0) return { kind: 'expirable-semaphore' };
    const { semaphore, latch } = raw.channels;
    if (latch > 0 && semaphore === 0) return { kind: 'latch' };
    if (semaphore > 0) return { kind: 'semaphore' };
    if (raw.pttl < 0) return { kind: 'semaphore', alternatives: ['latch'] };
    return lockLike ? { kind: 'token', alternatives: ['semaphore', 'latch'] } : { kind: 'not-a-lock', alternatives: ['token', 'semaphore', 'latch'] };
  }
  const library = tokenLibrary(raw.key, value, raw.nowMs);
  if (library === 'unknown' && !lockLike) return { kind: 'not-a-lock', alternatives: ['token'] };
  if (raw.pttl >= 0 || WITHOUT_DEFAULT_EXPIRY.has(library)) return { kind: 'token' };
  return { kind: 'not-a-lock', alternatives: ['token'], tokenWithoutExpiry: library };
}

function recognizeZset(raw: RawSnapshot): Recognition {
  if (!raw.key.startsWith('semaphore:') || raw.body.length === 0) return { kind: 'not-a-lock' };
  for (let i = 0; i < raw.body.length; i += 2) if (!RS_MEMBER.test(raw.body[i]!)) return { kind: 'not-a-lock' };
  return { kind: 'rs-semaphore' };
}

/** The kind a snapshot's data says it is. */
export function recognize(raw: RawSnapshot): Recognition {
  const companion = companionOf(raw.key);
  if (companion && COMPANION_TYPE[companion.role] === raw.type) return { kind: 'not-a-lock' };
  switch (raw.type) {
    case 'none':
      if (hasFairCompanions(raw)) return { kind: 'fair' };
      if (raw.counter !== undefined) return { kind: 'fenced' };
      return { kind: raw.permitCount > 0 ? 'expirable-semaphore' : 'missing' };
    case 'hash':
      return recognizeHash(raw);
    case 'string':
      return recognizeString(raw);
    case 'zset':
      return recognizeZset(raw);
    default:
      return { kind: 'not-a-lock' };
  }
}

/** Whether the data can be read as `kind` at all (--kind may pick any reading that fits). */
export function fits(kind: InspectKind, raw: RawSnapshot): boolean {
  const isHash = raw.type === 'hash';
  const rwHash = isHash && hashField(raw.body, 'mode') !== undefined;
  const integer = raw.type === 'string' && INTEGER.test(raw.body[0] ?? '');
  switch (kind) {
    case 'missing':
      return raw.type === 'none';
    case 'not-a-lock':
      return raw.type !== 'none';
    case 'reentrant':
      return isHash && !rwHash;
    case 'fenced':
      return (isHash && !rwHash) || (raw.type === 'none' && raw.counter !== undefined);
    case 'fair':
      return (isHash && !rwHash) || (raw.type === 'none' && hasFairCompanions(raw));
    case 'rw':
      return rwHash;
    case 'multi-lock':
      return isHash && isMultiLockBody(raw.body);
    case 'rate-limiter':
      return isHash && isRateLimiterBody(raw.body);
    case 'semaphore':
    case 'latch':
      return integer;
    case 'expirable-semaphore':
      return integer || (raw.type === 'none' && raw.permitCount > 0);
    case 'token':
      return raw.type === 'string' && raw.body.length > 0;
    case 'rs-semaphore':
      return raw.type === 'zset';
  }
}
