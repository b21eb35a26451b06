import { formatDuration } from '../duration.js';
import type { LockWarning, QueueEntryView } from '../lock-view.js';
import { fairTimeoutKey } from '../names.js';
import { scoreMs } from './fields.js';
import type { RawSnapshot } from './raw.js';
import { warn } from './warnings.js';

const place = (position: number): string => (position === 0 ? 'next in line' : `#${position + 1} in line`);

/**
 * The fair wait queue in order, each waiter's deadline relative to the server's clock, and the
 * wait Redisson itself would predict: the deadline of the nearest live waiter ahead (a waiter
 * that dies costs its whole allowance), or the lock's lease left when nobody live is ahead.
 * Overdue waiters ahead cost nothing (they are purged), one without a deadline blocks for good.
 */
export function decodeQueue(raw: RawSnapshot, held: boolean, warnings: LockWarning[]): QueueEntryView[] {
  const scores = new Map<string, number | null>();
  for (let i = 0; i + 1 < raw.deadlines.length; i += 2) scores.set(raw.deadlines[i]!, scoreMs(raw.deadlines[i + 1]));
  const queue: QueueEntryView[] = [];
  let ahead: number | null = held ? (raw.pttl >= 0 ? raw.pttl : null) : 0;
  let headRun = true; // still inside the run of overdue entries at the head: those go at the next attempt
  for (let position = 0; position < raw.queue.length; position++) {
    const owner = raw.queue[position]!;
    const score = scores.get(owner);
    scores.delete(owner);
    const deadlineInMs = score === undefined || score === null ? null : score - raw.nowMs;
    queue.push({
      owner,
      position,
      deadlineInMs,
      ...(ahead !== null ? { expectedWaitMs: Math.max(0, ahead) } : {}),
      subscribers: raw.waiterSubscribers[position] ?? 0,
    });
    if (deadlineInMs === null || deadlineInMs > 0) ahead = ahead === null ? null : deadlineInMs;
    if (deadlineInMs === null) {
      headRun = false;
      warnings.push(
        warn(
          'queue-entry-without-deadline',
          'error',
          `waiter ${owner} (${place(position)}) has no deadline in ${fairTimeoutKey(raw.key)}: Redisson never purges it, so at the head it blocks the queue for good`,
        ),
      );
    } else if (deadlineInMs <= 0) {
      const when = headRun ? 'purged at the next attempt' : 'purged once it reaches the head';
      warnings.push(warn('overdue-waiter', 'warning', `waiter ${owner} (${place(position)}) overdue ${formatDuration(-deadlineInMs)}: ${when}`));
    } else {
      headRun = false;
    }
  }
  // Whatever is left had a deadline but no queue entry (only checkable when both were read whole).
  if (raw.queue.length === raw.queueLength && raw.deadlines.length / 2 === raw.deadlineCount) {
    for (const owner of scores.keys()) {
      warnings.push(
        warn(
          'deadline-without-queue-entry',
          'warning',
          `${owner} has a deadline but no place in the queue: that client will never queue again until it is removed`,
        ),
      );
    }
  }
  if (raw.queue.length < raw.queueLength) {
    warnings.push(warn('truncated', 'info', `showing the first ${raw.queue.length} of ${raw.queueLength} waiters`));
  }
  const head = queue[0];
  if (!held && head && head.deadlineInMs !== null && head.deadlineInMs > 0) {
    warnings.push(warn('free-with-queue', 'info', `free: ${head.owner} takes it at its next attempt`));
  }
  return queue;
}
