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

/** A wait in two parts: what moves with the clock, and who holds the lock (changes only on a refusal). */
export interface WaitingParts {
  /** `waited 3.1 s · 2nd in the queue · lease left 4.2 s` */
  readonly progress: string;
  /** `held by A:1, B:2 ×2`; undefined when nobody holds it (others are queued ahead). */
  readonly holders: string | undefined;
}

export function waitingParts(seen: WaitSeen, startedAt: number, now: number): WaitingParts {
  const holders = seen.holders.map((h) => (h.count > 1 ? `${h.owner} ×${h.count}` : h.owner));
  const lease = seen.ttlMs === -1 ? 'no TTL' : `lease left ${formatDuration(Math.max(0, seen.ttlMs - (now - seen.seenAt)))}`;
  const queue = seen.queuePosition !== undefined ? [`${ordinal(seen.queuePosition + 1)} in the queue`] : [];
  const state = holders.length === 0 ? 'free, but others are queued ahead' : lease;
  return {
    progress: [`waited ${formatDuration(Math.max(0, now - startedAt))}`, ...queue, state].join(' · '),
    holders: holders.length === 0 ? undefined : `held by ${holders.join(', ')}`,
  };
}

/**
 * `waited 3.1 s · 2nd in the queue · lease left 4.2 s · held by A:1` on one line: what changes
 * first, the long owner ids last, so a line cut at the terminal's edge loses only an owner's end.
 */
export function describeWaiting(seen: WaitSeen, startedAt: number, now: number): string {
  const { progress, holders } = waitingParts(seen, startedAt, now);
  return holders === undefined ? progress : `${progress} · ${holders}`;
}
