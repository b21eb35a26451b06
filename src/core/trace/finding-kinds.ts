// The kinds of finding the trace's checker issues (checker.ts) and their classes: what `trace`
// exits 7 on, what `--fail-on liveness` adds, and warnings; the exporter's findings counter is
// labelled with both.

export const FINDING_KINDS = [
  'expired-while-held',
  'overlap',
  'silent-reacquire',
  'foreign-delete',
  'lost-in-failover',
  'renewal-gap',
  'no-ttl',
  'overdue-queue-head',
  'unchecked-release',
  'starvation',
  'deadlock',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** Kinds where two holders may have been inside at once or a holder lost its lock: exit 7. */
export const UNSAFE_KINDS: ReadonlySet<FindingKind> = new Set(['expired-while-held', 'overlap', 'silent-reacquire', 'foreign-delete', 'lost-in-failover']);

/** Kinds where nobody was inside twice, but a waiter does not get in: `trace --fail-on liveness` fails on them too. */
export const LIVENESS_KINDS: ReadonlySet<FindingKind> = new Set(['deadlock', 'starvation']);

/** A finding kind's class: what `trace` exits 7 on, what `--fail-on liveness` adds, or a warning. */
export type FindingClass = 'unsafe' | 'liveness' | 'warning';
export const findingClass = (kind: FindingKind): FindingClass => (UNSAFE_KINDS.has(kind) ? 'unsafe' : LIVENESS_KINDS.has(kind) ? 'liveness' : 'warning');
