import type { LockView } from '../lock-view.js';
import { LOCK_LIKE } from './lock-like.js';

// bsm/redislock (Go; docs/lock-formats.md, "Python and Go libraries"): the key is the caller's,
// with no prefix; the value is a 22-character token (16 random bytes, URL-safe base64 without
// padding) followed directly by the caller's metadata, if any. ObtainMulti (v0.10.0) writes that
// one value to every key it locks, each with the same TTL.

export const BSM_REDISLOCK = 'bsm-redislock';
export const BSM_TOKEN_LENGTH = 22;

/**
 * 16 bytes are 128 bits and 22 characters carry 132, so the last character's two low bits are
 * zero: only every fourth letter of the alphabet can end a token. That rejects three of four
 * other 22-character strings.
 */
const DEFAULT_TOKEN = /^[A-Za-z0-9_-]{21}[AEIMQUYcgkosw048]/;

/**
 * Its token alone (22 characters), or its token and metadata under a lock-like name: metadata
 * has no separator, so "22 URL-safe characters and more" would otherwise claim any long value.
 */
export function isBsmRedislock(key: string, value: string): boolean {
  if (!DEFAULT_TOKEN.test(value)) return false;
  return value.length === BSM_TOKEN_LENGTH || LOCK_LIKE.test(key);
}

/** The metadata the caller stored after the token (Options.Metadata), when there is any. */
export function bsmMetadata(value: string): string | undefined {
  return value.length > BSM_TOKEN_LENGTH ? value.slice(BSM_TOKEN_LENGTH) : undefined;
}

/**
 * One view per ObtainMulti lock: bsm/redislock views holding the same value are one lock over
 * several keys (each key still a view of its own in Redis), shown under the first key with
 * `keys` listing all of them and the shortest TTL, which is when the lock stops being whole.
 */
export function groupMultiKeyLocks(views: readonly LockView[]): LockView[] {
  const groups = new Map<string, LockView[]>();
  const out: (LockView | string)[] = [];
  for (const view of views) {
    if (view.kind !== 'token' || view.library !== BSM_REDISLOCK || view.value === undefined) {
      out.push(view);
      continue;
    }
    const group = groups.get(view.value);
    if (group) group.push(view);
    else {
      groups.set(view.value, [view]);
      out.push(view.value);
    }
  }
  return out.map((entry) => {
    if (typeof entry !== 'string') return entry;
    const group = groups.get(entry)!;
    if (group.length === 1) return group[0]!;
    // Sorted: the lock is shown under the same key whatever order SCAN found them in.
    const sorted = [...group].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const ttls = sorted.map((v) => v.ttlMs).filter((t) => t >= 0);
    return {
      ...sorted[0]!,
      keys: sorted.map((v) => v.key),
      ttlMs: ttls.length > 0 ? Math.min(...ttls) : sorted[0]!.ttlMs,
    };
  });
}
