import type { InspectKind, LockWarning } from '../lock-view.js';
import { decodeQueue } from './fair.js';
import type { KindFields } from './fields.js';
import { hashHolders, holdCountWarnings } from './holders.js';
import type { RawSnapshot } from './raw.js';
import { warn } from './warnings.js';

/** A lock hash too big to read whole comes back as a sample: say so instead of presenting it as the whole. */
export function sampledWarning(raw: RawSnapshot, warnings: LockWarning[]): void {
  if (raw.type === 'hash' && raw.size > raw.body.length / 2) {
    warnings.push(warn('truncated', 'info', `a hash of ${raw.size} fields: showing a sample of ${raw.body.length / 2}`));
  }
}

/** Redisson RLock / RSpinLock / RFencedLock / RFairLock: one hash of `<uuid>:<thread>` → count. */
export function decodeHashLock(kind: Extract<InspectKind, 'reentrant' | 'fenced' | 'fair'>, raw: RawSnapshot, warnings: LockWarning[]): KindFields {
  const holders = hashHolders(raw.body);
  sampledWarning(raw, warnings);
  warnings.push(...holdCountWarnings(holders));
  if (kind === 'fair') {
    const queue = decodeQueue(raw, holders.length > 0, warnings);
    // Fair waiters listen on their own channels; plain RLock waiters on the same name on the lock's.
    const waiters = queue.reduce((sum, q) => sum + (q.subscribers ?? 0), raw.channels.lock);
    return { holders, queue, waiters };
  }
  if (kind === 'fenced') {
    const token = raw.counter !== undefined && /^-?\d+$/.test(raw.counter) ? Number(raw.counter) : undefined;
    if (token === undefined) warnings.push(warn('no-fencing-counter', 'info', 'no fencing counter yet: no fenced acquisition has happened'));
    return { holders, token, waiters: raw.channels.lock };
  }
  return { holders, waiters: raw.channels.lock };
}
