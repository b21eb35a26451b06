import type { RawSnapshot } from '../core/decode/raw.js';
import { hashField } from '../core/decode/holders.js';
import { recognize, type Recognition } from '../core/decode/recognize.js';
import { tokenLibrary, type TokenLibrary } from '../core/decode/token-library.js';
import { shellQuote } from '../core/doctor-fix.js';
import { WrongTypeError } from '../core/errors.js';
import { escapeControls } from '../core/decode/escape.js';
import type { InspectKind } from '../core/lock-view.js';
import { writeHolder } from '../core/owner.js';
import { snapshotKeys } from '../inspect/snapshot.js';
import type { LockEnv, LockKind } from './types.js';

// Before a lock command writes, it reads the key exactly as `inspect` does and decides with the
// same decoder what the key is. Whatever inspect does not call a lock of the command's family
// (application data, a semaphore, a fair lock under --kind reentrant, a malformed hash) is
// refused here, with nothing sent that could change it. The Lua scripts check the family again
// at write time, for a key that changes in between.

/** The inspect kinds each of our lock kinds may act on (same data layout and same wake-ups). */
const ACTS_ON: Record<LockKind, readonly InspectKind[]> = {
  // RLock, spin and fenced share the hash and its scripts; a fenced lock's counter changes nothing else.
  reentrant: ['reentrant', 'fenced'],
  spin: ['reentrant', 'fenced'],
  fenced: ['fenced', 'reentrant'],
  // A fair lock with nobody queued is, in Redis, exactly an RLock hash.
  fair: ['fair', 'reentrant'],
  read: ['rw'],
  write: ['rw'],
  token: ['token'],
  redlock: ['token'],
  spring: ['token'],
  shedlock: ['token'],
  'python-redis-lock': ['token'],
  'bsm-redislock': ['token'],
  'redis-py': ['token'],
  'multi-lock': ['multi-lock'],
};

/** Our kind for each inspect kind, when the key alone decides (no --kind given). */
const KIND_OF: Partial<Record<InspectKind, LockKind>> = { reentrant: 'reentrant', fenced: 'fenced', fair: 'fair', token: 'token', 'multi-lock': 'multi-lock' };

/** A token lock in a library's format is acted on as that library, so its waiters hear its release. */
const LIBRARY_KIND: Partial<Record<TokenLibrary, LockKind>> = {
  spring: 'spring',
  shedlock: 'shedlock',
  'python-redis-lock': 'python-redis-lock',
  'bsm-redislock': 'bsm-redislock',
};

function kindOfToken(raw: RawSnapshot): LockKind {
  return LIBRARY_KIND[tokenLibrary(raw.key, raw.body[0] ?? '', raw.nowMs)] ?? 'token';
}

const SEEN_AS: Record<InspectKind, string> = {
  reentrant: 'a Redisson lock (reentrant)',
  fenced: 'a fenced lock',
  fair: 'a fair lock',
  rw: 'a read-write lock',
  'multi-lock': 'a Redisson group multi-lock',
  'rate-limiter': 'a Redisson rate limiter',
  token: 'a token lock',
  semaphore: 'a semaphore',
  'expirable-semaphore': 'an expirable semaphore',
  latch: 'a count-down latch',
  'rs-semaphore': 'a redis-semaphore semaphore',
  'not-a-lock': 'not a lock',
  missing: 'missing',
};

/** The --kind that names an inspect kind, for the "use --kind ..." hint. */
const KIND_HINT: Partial<Record<InspectKind, string>> = {
  reentrant: 'reentrant',
  fenced: 'fenced',
  fair: 'fair',
  rw: 'read or --kind write',
  token: 'token',
  'multi-lock': 'multi-lock',
};

export interface KindQuestion {
  /** --kind as given on the command line (or acquire's default); undefined: let the key decide. */
  readonly kind?: LockKind | undefined;
  /** The holder acting, to tell a reader from the writer of a read-write lock. */
  readonly owner?: string | undefined;
  /**
   * force-unlock: under an explicit token kind, a string that could be a token lock set without
   * expiry counts as one. Every other command refuses it: no token library takes a lock without
   * a TTL, so releasing or renewing one only ever touches application data.
   */
  readonly breakGlass?: boolean | undefined;
}

/**
 * The kind to act as on this key: the one asked for when the key's data is of that family, or
 * the key's own when none was asked; undefined when the key does not exist (and no kind was
 * asked). Throws a one-line usage error (exit 2) for anything else.
 */
export function kindForKey(raw: RawSnapshot, question: KindQuestion): LockKind | undefined {
  const recognition = recognize(raw);
  const seen = seenKind(raw, recognition, question);
  // With no key, only a fair queue still speaks for it (its waiters must be woken in turn); a
  // fencing counter or permit zset left behind does not make the free name another kind's.
  if (seen === 'missing' || (raw.type === 'none' && seen !== 'fair')) return question.kind;
  if (question.kind !== undefined) {
    if (ACTS_ON[question.kind].includes(seen)) return question.kind;
    throw refusal(raw, recognition, seen, `not a ${question.kind} lock`);
  }
  if (seen === 'rw') return rwHalf(raw, question.owner);
  if (seen === 'token') return kindOfToken(raw);
  const kind = KIND_OF[seen];
  if (kind) return kind;
  throw refusal(raw, recognition, seen, 'not a lock this command can act on');
}

/**
 * What inspect calls the key. A string inspect reads as plain data but could read as a token
 * (`inspect --kind token`) counts as a token lock only under an explicit token kind and with a
 * TTL: every token lock library sets one, and an application string without one is never ours.
 * The one exception is force-unlock's break glass, on a string that could be a lock set without
 * expiry.
 */
function seenKind(raw: RawSnapshot, seen: Recognition, question: KindQuestion): InspectKind {
  const tokenAsked = question.kind !== undefined && ACTS_ON[question.kind].includes('token');
  if (!tokenAsked || seen.kind !== 'not-a-lock' || !seen.alternatives?.includes('token')) return seen.kind;
  if (raw.pttl >= 0) return 'token';
  if (seen.tokenWithoutExpiry !== undefined && question.breakGlass === true) return 'token';
  return seen.kind;
}

/** Without --kind a read-write lock is released/renewed as the half this owner holds. */
function rwHalf(raw: RawSnapshot, owner: string | undefined): LockKind {
  if (owner !== undefined && hashField(raw.body, writeHolder(owner)) !== undefined) return 'write';
  if (owner !== undefined && hashField(raw.body, owner) !== undefined) return 'read';
  return hashField(raw.body, 'mode') === 'write' ? 'write' : 'read';
}

function refusal(raw: RawSnapshot, recognition: Recognition, seen: InspectKind, what: string): WrongTypeError {
  const key = `"${escapeControls(raw.key)}"`;
  if (seen === 'not-a-lock' && recognition.tokenWithoutExpiry !== undefined) {
    return new WrongTypeError(
      `${key} holds a string without TTL, read as application data since no token library takes a lock without one: nothing was changed; if it is a lock set without expiry, delete it with redlock-cli force-unlock ${shellQuote(raw.key)} --kind token --yes`,
    );
  }
  if (seen === 'not-a-lock') {
    return new WrongTypeError(`${key} holds a ${raw.type} that is not a lock: nothing was changed (see redlock-cli inspect ${shellQuote(raw.key)})`);
  }
  const hint = KIND_HINT[seen] ? `use --kind ${KIND_HINT[seen]}` : `see redlock-cli inspect ${shellQuote(raw.key)}`;
  return new WrongTypeError(`${key} is ${SEEN_AS[seen]}, ${what}: ${hint} (nothing was changed)`);
}

/**
 * The key as inspect reads it, on the target or on every reachable Redlock node (one round trip
 * each, read-only).
 */
export async function readKey(env: LockEnv, key: string): Promise<RawSnapshot[]> {
  const conns = env.nodes.length > 0 ? env.nodes.filter((n) => !n.offline) : [env.conn];
  const reads = await Promise.all(conns.map((conn) => snapshotKeys(conn, [key])));
  return reads.map((r) => r[0]!.raw);
}

/** Reads the key and decides its kind; with Redlock nodes every node's copy must agree with it. */
export async function lockKindOf(env: LockEnv, key: string, question: KindQuestion): Promise<{ kind: LockKind | undefined; raws: RawSnapshot[] }> {
  const raws = await readKey(env, key);
  let kind: LockKind | undefined;
  for (const raw of raws) kind = kindForKey(raw, question) ?? kind;
  return { kind: kind ?? question.kind, raws };
}
