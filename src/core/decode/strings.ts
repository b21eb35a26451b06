import { formatDuration } from '../duration.js';
import type { LockWarning, PermitView } from '../lock-view.js';
import type { KindFields } from './fields.js';
import type { RawSnapshot } from './raw.js';
import { TOKEN_FACTS } from './token-facts.js';
import { BSM_REDISLOCK, bsmMetadata } from './bsm.js';
import { tokenLibrary } from './token-library.js';
import { warn } from './warnings.js';

/** Redisson's score for a permit that never expires (RedissonPermitExpirableSemaphore.java:50). */
export const NON_EXPIRING_SCORE = 922_337_203_685_477;

const integerValue = (raw: RawSnapshot): number => Number(raw.body[0] ?? 0);

/** node-redlock / redsync / redis-py / redis-semaphore mutex / Spring / hand-written: the value is the owner. */
export function decodeToken(raw: RawSnapshot, warnings: LockWarning[]): KindFields {
  const value = raw.body[0] ?? '';
  const library = tokenLibrary(raw.key, value, raw.nowMs);
  const tokenFacts = TOKEN_FACTS[library]?.(raw.key, value, warnings, raw.nowMs);
  const metadata = library === BSM_REDISLOCK ? bsmMetadata(value) : undefined;
  return {
    holders: [{ owner: value, count: 1 }],
    value,
    library,
    ...(tokenFacts ? { tokenFacts } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    waiters: 0,
  };
}

/** Redisson RSemaphore: the value is the number of permits available (it may go negative). */
export function decodeSemaphore(raw: RawSnapshot, warnings: LockWarning[]): KindFields {
  const available = integerValue(raw);
  if (available < 0) {
    warnings.push(warn('negative-permits', 'info', `${available} permits: reduced below zero, acquirers wait until releases bring it above 0`));
  }
  return { holders: [], available, waiters: raw.channels.semaphore };
}

/** Redisson RCountDownLatch: the value is the count; awaiters listen on the latch channel. */
export function decodeLatch(raw: RawSnapshot): KindFields {
  return { holders: [], count: integerValue(raw), waiters: raw.channels.latch };
}

/** Redisson >= 3.17 stores raw 16-byte ids; <= 3.16 stored the 32 hex characters themselves. */
function permitId(hex: string): string {
  if (hex.length !== 64) return hex;
  const text = hex.replace(/../g, (h) => String.fromCharCode(parseInt(h, 16)));
  return /^[0-9a-f]{32}$/.test(text) ? text : hex;
}

/** Redisson RPermitExpirableSemaphore: available permits, plus each taken permit's deadline. */
export function decodeExpirableSemaphore(raw: RawSnapshot, warnings: LockWarning[]): KindFields {
  const permits: PermitView[] = [];
  for (let i = 0; i + 1 < raw.permits.length; i += 2) {
    const score = Number(raw.permits[i + 1]);
    const expiresInMs = score >= NON_EXPIRING_SCORE || !Number.isFinite(score) ? null : score - raw.nowMs;
    const expired = expiresInMs !== null && expiresInMs <= 0;
    const id = permitId(raw.permits[i]!);
    permits.push({ id, expiresInMs, expired });
    if (expired) {
      warnings.push(
        warn('expired-permit', 'warning', `permit ${id} expired ${formatDuration(-expiresInMs)} ago and is still counted as taken: reclaimed at the next acquire or release`),
      );
    }
  }
  if (raw.permits.length / 2 < raw.permitCount) {
    warnings.push(warn('truncated', 'info', `showing ${raw.permits.length / 2} of ${raw.permitCount} permits`));
  }
  return { holders: [], available: raw.type === 'none' ? 0 : integerValue(raw), permits, waiters: raw.channels.semaphore };
}
