import { safeText } from '../core/terminal-text.js';
import { formatDuration } from '../core/duration.js';
import { formatColumns } from '../core/text-layout.js';
import type { LockPeek } from '../locks/peek.js';
import type { Attempt, Holder, Vote } from '../locks/types.js';

export function formatHolders(holders: readonly Holder[]): string {
  if (holders.length === 0) return 'nobody';
  // Owners are whatever some client wrote into Redis: escaped before they join a sentence.
  return holders.map((h) => (h.count > 1 ? `${safeText(h.owner)} (${h.count} holds)` : safeText(h.owner))).join(', ');
}

export function formatTtl(ttlMs: number): string {
  if (ttlMs === -1) return 'with no TTL: it will never expire on its own';
  if (ttlMs < 0) return 'about to expire';
  return `for another ${formatDuration(ttlMs)}`;
}

/** "held by X for another 4.2 s" for a refused attempt. */
export function describeRefusal(key: string, attempt: Extract<Attempt, { acquired: false }>): string {
  if (attempt.holders.length === 0) {
    // Redlock can fail with nobody holding it (errors, validity used up); a fair lock can be free
    // and still refuse a newcomer because earlier waiters go first.
    return attempt.votes
      ? `not acquired: no majority of nodes granted "${safeText(key)}" in time (see the votes above)`
      : `not acquired: "${safeText(key)}" is free but other clients are queued ahead (fair lock queue)`;
  }
  return `not acquired: "${safeText(key)}" is held by ${formatHolders(attempt.holders)} ${formatTtl(attempt.ttlMs)}`;
}

/** Who holds a key now, for "you do not own it" messages. */
export function describeCurrent(key: string, peek: LockPeek, expiredAgoMs?: number): string {
  if (peek.type === 'none') {
    return expiredAgoMs !== undefined && expiredAgoMs >= 0
      ? `"${safeText(key)}" is not locked: its lease ran out ${formatDuration(expiredAgoMs)} ago`
      : `"${safeText(key)}" is not locked by anyone`;
  }
  const mode = peek.mode ? ` (${peek.mode} mode)` : '';
  return `"${safeText(key)}"${mode} is held by ${formatHolders(peek.holders)} ${formatTtl(peek.ttlMs)}`;
}

/** The per-node table of a Redlock attempt. */
/** The attempt with every node's vote: a Redlock round is decided before its slowest node answers. */
export async function withAllVotes(attempt: Attempt): Promise<Attempt> {
  return attempt.allVotes ? { ...attempt, votes: await attempt.allVotes } : attempt;
}

export function formatVotes(votes: readonly Vote[]): string[] {
  return formatColumns([
    ['node', 'vote', 'time', ''],
    ...votes.map((v) => [v.node, v.result, `${v.ms.toFixed(1)} ms`, safeText(v.detail ?? '')]),
  ]);
}
