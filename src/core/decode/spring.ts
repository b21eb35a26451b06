// Spring Integration's RedisLockRegistry (docs/lock-formats.md, "Spring RedisLockRegistry"): a
// string at `<registryKey>:<lockKey>` holding the registry's client id (one UUID per registry, so
// every lock a process holds through one registry has the same value), with a PX expiry of 60 s
// unless the registry was built with another. PUB_SUB_LOCK registries publish the full key on
// `<registryKey>-channel:<registryKey>:<lockKey>` when they release; their waiters listen on the
// pattern `<registryKey>-channel:*`.

import type { LockWarning, TokenFacts } from '../lock-view.js';
import { formatDuration } from '../duration.js';
import { warn } from './warnings.js';

/** RedisLockRegistry's expiry when none is given (DEFAULT_EXPIRE_AFTER). */
export const SPRING_DEFAULT_EXPIRE_MS = 60_000;

/** How many `:`-splits of a key force-unlock and release publish on (a key with more is rare). */
const MAX_SPLITS = 16;

/** Registry key and lock name: the registry key is taken to end at the first `:`. */
export function springKeyParts(key: string): { registryKey: string; lockKey: string } | undefined {
  const colon = key.indexOf(':');
  if (colon <= 0) return undefined;
  return { registryKey: key.slice(0, colon), lockKey: key.slice(colon + 1) };
}

/**
 * Every channel a PUB_SUB_LOCK registry holding this key could listen on. The key alone does not
 * say where the registry key ends (either part may contain `:`), so a release publishes the key
 * on `<prefix>-channel:<key>` for each prefix that ends before a `:`. Each message reaches only
 * the registry whose key is that prefix, and the body is the Redis key its waiters compare with.
 */
export function springUnlockChannels(key: string): string[] {
  const channels: string[] = [];
  for (let at = key.indexOf(':'); at > 0 && channels.length < MAX_SPLITS; at = key.indexOf(':', at + 1)) {
    channels.push(`${key.slice(0, at)}-channel:${key}`);
  }
  return channels;
}

/** What inspect shows of a Spring lock beside its client id, and what is normal for it. */
export function springFacts(key: string, value: string, warnings: LockWarning[]): TokenFacts {
  const parts = springKeyParts(key);
  warnings.push(
    warn(
      'spring-lock',
      'info',
      `Spring RedisLockRegistry lock: the value is its registry's client id, shared by every lock that registry holds; it expires after ${formatDuration(SPRING_DEFAULT_EXPIRE_MS)} unless the registry was given another expiry or renews it; PUB_SUB_LOCK waiters listen on the pattern ${parts?.registryKey ?? '<registry>'}-channel:*, which PUBSUB cannot count per lock`,
    ),
  );
  return { ...(parts ?? {}), id: value };
}
