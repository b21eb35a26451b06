import type { HolderView, PermitView } from '../lock-view.js';
import type { KindFields } from './fields.js';
import type { RawSnapshot } from './raw.js';

/**
 * redis-semaphore Semaphore / MultiSemaphore: members `<uuid>` (or `<uuid>_<n>`), scored with the
 * client's Date.now() at acquire or refresh. The library's lockTimeout is not stored, but every
 * acquire and refresh sets the key's PEXPIRE to it, so lockTimeout ≈ PTTL + time since the newest
 * score; a member expires at score + lockTimeout (docs/lock-formats.md).
 */
export function decodeRsSemaphore(raw: RawSnapshot): KindFields {
  let newest = -Infinity;
  for (let i = 1; i < raw.body.length; i += 2) newest = Math.max(newest, Number(raw.body[i]));
  const lockTimeout = raw.pttl >= 0 && Number.isFinite(newest) ? raw.pttl + raw.nowMs - newest : undefined;
  const permits: PermitView[] = [];
  const counts = new Map<string, number>();
  for (let i = 0; i + 1 < raw.body.length; i += 2) {
    const id = raw.body[i]!;
    const expiresInMs = lockTimeout === undefined ? null : Number(raw.body[i + 1]) + lockTimeout - raw.nowMs;
    const expired = expiresInMs !== null && expiresInMs <= 0;
    permits.push({ id, expiresInMs, expired });
    // MultiSemaphore holds n permits as <uuid>_0 .. <uuid>_{n-1}: one holder with count n.
    const owner = id.replace(/_\d+$/, '');
    if (!expired) counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  const holders: HolderView[] = [...counts].map(([owner, count]) => ({ owner, count }));
  return { holders, permits, waiters: 0 };
}
