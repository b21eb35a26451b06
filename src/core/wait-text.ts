import { formatDuration } from './duration.js';

// The live line of a waiting `acquire --wait` / `hold --wait`: who holds the lock, how much of its
// lease is left, our place in a fair queue, and how long we have waited. Pure: the caller passes
// what the last refused attempt saw and the clock.

export interface WaitSeen {
  /** Holders (escaped already) from the last refused attempt. */
  readonly holders: readonly { readonly owner: string; readonly count: number }[];
  /** PTTL at that attempt: -1 no TTL. */
  readonly ttlMs: number;
  /** Fair locks: 0 = next in line. */
  readonly queuePosition?: number | undefined;
  /** When that attempt's answer came (epoch ms): the lease counts down from there. */
  readonly seenAt: number;
}

const ordinal = (n: number): string => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
};

/** `waited 3.1 s · 2nd in the queue · held by A:1 (lease left 4.2 s)`: what changes first, the long owner id last. */
export function describeWaiting(seen: WaitSeen, startedAt: number, now: number): string {
  const holders = seen.holders.map((h) => (h.count > 1 ? `${h.owner} ×${h.count}` : h.owner));
  const lease = seen.ttlMs === -1 ? 'no TTL' : `lease left ${formatDuration(Math.max(0, seen.ttlMs - (now - seen.seenAt)))}`;
  const who = holders.length === 0 ? 'free, but others are queued ahead' : `held by ${holders.join(', ')} (${lease})`;
  const queue = seen.queuePosition !== undefined ? [`${ordinal(seen.queuePosition + 1)} in the queue`] : [];
  return [`waited ${formatDuration(Math.max(0, now - startedAt))}`, ...queue, who].join(' · ');
}
