// What happened to a lock between two snapshots of it. A watch only sees states, never the
// commands that changed them, so these events are inferred: a holder that vanished while its TTL
// had run out expired, one that vanished earlier was released, a TTL higher than the countdown
// allows was renewed. Pure: the live view's event log and any future NDJSON events share it.

import { formatDuration } from './duration.js';
import type { LockView, LockWarning, QueueEntryView } from './lock-view.js';

/** A TTL this close to zero at the previous snapshot counts as run out when the key is gone. */
export const EXPIRY_SLACK_MS = 250;
/** A TTL must come back this much above its countdown to count as renewed (snapshot timing jitter). */
export const RENEW_SLACK_MS = 250;

interface Base {
  readonly key: string;
  /** readAt of the snapshot that showed the change. */
  readonly at: number;
}

export type LockEvent = Base &
  (
    | { readonly type: 'acquired'; readonly owner: string; readonly count: number; readonly fromQueue: boolean }
    /** `remaining` > 0: a re-entrant holder gave back some holds. */
    | { readonly type: 'released'; readonly owner: string; readonly remaining: number }
    | { readonly type: 'expired'; readonly owner: string; readonly role: 'holder' | 'reader' }
    | { readonly type: 'renewed'; readonly ttlMs: number }
    | { readonly type: 'joined'; readonly owner: string; readonly position: number }
    | { readonly type: 'left'; readonly owner: string }
    /** An overdue waiter vanished: Redisson purges those at the next acquire attempt. */
    | { readonly type: 'purged'; readonly owner: string }
    | { readonly type: 'reader-joined'; readonly owner: string; readonly count: number }
    | { readonly type: 'reader-left'; readonly owner: string; readonly remaining: number }
    | { readonly type: 'mode-changed'; readonly from: 'read' | 'write'; readonly to: 'read' | 'write' }
    | { readonly type: 'warning'; readonly warning: LockWarning }
  );

export type LockEventType = LockEvent['type'];

interface Held {
  readonly owner: string;
  readonly count: number;
}

const byOwner = (list: readonly Held[]): Map<string, number> => new Map(list.map((h) => [h.owner, h.count]));

/** Owners whose count went up (new ones included) and down (gone ones at 0). */
function countChanges(before: readonly Held[], after: readonly Held[]) {
  const was = byOwner(before);
  const now = byOwner(after);
  const up = after.filter((h) => h.count > (was.get(h.owner) ?? 0));
  const down = before
    .filter((h) => (now.get(h.owner) ?? 0) < h.count)
    .map((h) => ({ owner: h.owner, remaining: now.get(h.owner) ?? 0 }));
  return { up, down, was };
}

/** Holders proper: a decoder may list readers among holders too, and they get reader events. */
function holdersOf(view: LockView): readonly Held[] {
  const readers = new Set((view.readers ?? []).map((r) => r.owner));
  return view.holders.filter((h) => !readers.has(h.owner));
}

const isGone = (view: LockView): boolean => view.kind === 'missing';

/** Did the key's TTL run out between the snapshots (so a vanished holder expired rather than released)? */
function ranOut(prev: LockView, elapsedMs: number): boolean {
  return prev.ttlMs >= 0 && prev.ttlMs - elapsedMs <= EXPIRY_SLACK_MS;
}

function queueEvents(prev: LockView, next: LockView, elapsedMs: number, holdersNow: ReadonlySet<string>) {
  const before = prev.queue ?? [];
  const after = next.queue ?? [];
  const was = new Set(before.map((q) => q.owner));
  const now = new Set(after.map((q) => q.owner));
  const overdue = (q: QueueEntryView) => q.deadlineInMs !== null && q.deadlineInMs - elapsedMs <= 0;
  return {
    // A waiter that became the holder shows as "acquired from the queue", not as leaving it.
    gone: before.filter((q) => !now.has(q.owner) && !holdersNow.has(q.owner)).map((q) => ({ owner: q.owner, purged: overdue(q) })),
    joined: after.filter((q) => !was.has(q.owner)),
    wasQueued: was,
  };
}

/**
 * The events that explain how `prev` became `next` (two snapshots of the same key, in order), in
 * the order a reader would tell them: departures, arrivals, then renewals, mode and warnings.
 */
export function deriveLockEvents(prev: LockView, next: LockView): LockEvent[] {
  const base = { key: next.key, at: next.readAt };
  const elapsed = Math.max(0, next.readAt - prev.readAt);
  const holders = countChanges(holdersOf(prev), holdersOf(next));
  // The key ran out: it is gone, or already taken by someone new who found it free.
  const expired = ranOut(prev, elapsed) && (isGone(next) || (holders.up.length > 0 && holdersOf(next).every((h) => !holders.was.has(h.owner))));
  const events: LockEvent[] = [];

  const readers = countChanges(prev.readers ?? [], next.readers ?? []);
  const holdersNow = new Set(holdersOf(next).map((h) => h.owner));
  const queue = queueEvents(prev, next, elapsed, holdersNow);

  for (const h of holders.down) {
    events.push(h.remaining === 0 && expired ? { ...base, type: 'expired', owner: h.owner, role: 'holder' } : { ...base, type: 'released', ...h });
  }
  for (const r of readers.down) {
    events.push(r.remaining === 0 && expired ? { ...base, type: 'expired', owner: r.owner, role: 'reader' } : { ...base, type: 'reader-left', ...r });
  }
  for (const q of queue.gone) events.push({ ...base, type: q.purged ? 'purged' : 'left', owner: q.owner });
  for (const h of holders.up) {
    events.push({ ...base, type: 'acquired', owner: h.owner, count: h.count, fromQueue: queue.wasQueued.has(h.owner) });
  }
  for (const r of readers.up) events.push({ ...base, type: 'reader-joined', owner: r.owner, count: r.count });
  for (const q of queue.joined) events.push({ ...base, type: 'joined', owner: q.owner, position: q.position });

  // A new hold resets the TTL too; only a jump nothing else explains is a renewal.
  const kept = holdersOf(next).some((h) => holders.was.has(h.owner)) || (next.readers ?? []).some((r) => readers.was.has(r.owner));
  const renewed = kept && holders.up.length === 0 && readers.up.length === 0 && prev.ttlMs >= 0 && next.ttlMs > prev.ttlMs - elapsed + RENEW_SLACK_MS;
  if (renewed) events.push({ ...base, type: 'renewed', ttlMs: next.ttlMs });
  if (prev.mode && next.mode && prev.mode !== next.mode) events.push({ ...base, type: 'mode-changed', from: prev.mode, to: next.mode });

  const known = new Set(prev.warnings.map((w) => w.code));
  for (const warning of next.warnings) if (!known.has(warning.code)) events.push({ ...base, type: 'warning', warning });
  return events;
}

const holds = (n: number): string => (n === 1 ? '1 hold' : `${n} holds`);

/** One line for the event log (without time and key). */
export function describeLockEvent(e: LockEvent): string {
  switch (e.type) {
    case 'acquired':
      if (e.count > 1 && !e.fromQueue) return `${e.owner} holds it again (${holds(e.count)})`;
      return `acquired by ${e.owner}${e.fromQueue ? ' from the queue' : ''}`;
    case 'released':
      return e.remaining > 0 ? `${e.owner} released one hold (${holds(e.remaining)} left)` : `released by ${e.owner}`;
    case 'expired':
      return `expired: ${e.role === 'reader' ? 'read lock of ' : ''}${e.owner} ran out of lease`;
    case 'renewed':
      return `renewed: TTL back up to ${formatDuration(e.ttlMs)}`;
    case 'joined':
      return `${e.owner} joined the queue at position ${e.position + 1}`;
    case 'left':
      return `${e.owner} left the queue`;
    case 'purged':
      return `${e.owner} purged from the queue: its deadline had passed`;
    case 'reader-joined':
      return e.count > 1 ? `reader ${e.owner} holds it again (${holds(e.count)})` : `read lock taken by ${e.owner}`;
    case 'reader-left':
      return e.remaining > 0 ? `reader ${e.owner} released one hold (${holds(e.remaining)} left)` : `read lock released by ${e.owner}`;
    case 'mode-changed':
      return `mode ${e.from} → ${e.to}`;
    case 'warning':
      return `${e.warning.severity}: ${e.warning.message}`;
  }
}
