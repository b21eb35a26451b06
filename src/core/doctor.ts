import { formatDuration } from './duration.js';
import { describeCompanion, type Companion, type CompanionRole } from './decode/companions.js';
import { printable } from './decode/escape.js';
import { companionWord, fixFor, inspectFix, removeWaitersFix } from './doctor-fixes.js';
import { keyWord, redisCli, type FixTarget } from './doctor-fix.js';
import { fairQueueKey, fairTimeoutKey } from './names.js';
import { INSPECT_KINDS, type InspectKind, type LockView, type LockWarning, type Severity } from './lock-view.js';

// Doctor's checks over decoded locks (doctor-codes.ts names the scenario behind each finding:
// no TTL, fair queues, hold counts, application data, read-hold keys). The decoder already
// warns about most of what it sees in one key; doctor turns those warnings into findings with a
// fix, and adds what only a whole-keyspace look shows. Pure: the command gathers the facts.

/** One problem, what it means, and the command that would fix it (printed, never run). */
export interface Finding {
  readonly severity: Severity;
  /** Stable machine name: the decoder's warning code, or one of doctor's own. */
  readonly code: string;
  /** The key it is about; null for a server-level finding (replicas). */
  readonly key: string | null;
  /** host:port of the node the key (or replica) lives on. */
  readonly node?: string | undefined;
  readonly message: string;
  readonly fix: string;
}

export interface DoctorOptions {
  /** A fair waiter's allowance (Redisson's threadWaitTime, or the tryLock wait): drift is judged against it. */
  readonly fairWaitMs: number;
}

/** Names that say "lock" (scenario lock-key-collision: such a name holding other data can never be locked). */
export const LOCK_LIKE_NAME = /lock|mutex|sema|latch/i;

const LOCK_KINDS: ReadonlySet<InspectKind> = new Set(INSPECT_KINDS.filter((k) => k !== 'not-a-lock' && k !== 'missing'));

/** Several warnings of one code on one key read as one finding; the decoder already capped them. */
function groupByCode(warnings: readonly LockWarning[]): Map<string, LockWarning[]> {
  const groups = new Map<string, LockWarning[]>();
  for (const w of warnings) {
    if (w.severity === 'info') continue;
    groups.set(w.code, [...(groups.get(w.code) ?? []), w]);
  }
  return groups;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** The decoder's error and warning lines for one lock, each code with its fix. */
function warningFindings(view: LockView, node: string, target: FixTarget): Finding[] {
  return [...groupByCode(view.warnings)].map(([code, group]) => ({
    severity: group.reduce<Severity>((worst, w) => (SEVERITY_RANK[w.severity] < SEVERITY_RANK[worst] ? w.severity : worst), 'info'),
    code,
    key: view.key,
    node,
    message: group.map((w) => w.message).join('; '),
    fix: fixFor(code, view, target) ?? inspectFix(view, target),
  }));
}

/**
 * Redisson gives each new waiter the deadline of the one ahead plus its allowance, so with n
 * waiters no deadline should lie further out than the lease left plus n allowances. Beyond that
 * the scores were pushed forward (Redisson #1104/#2099, scenario fair-lock-dead-waiter) and waiters behind a dead
 * one wait hours. Deleting both keys is the repair: live waiters queue again at their next try.
 */
function queueDrift(view: LockView, node: string, target: FixTarget, opts: DoctorOptions): Finding | undefined {
  const queue = view.queue ?? [];
  const deadlines = queue.map((w) => w.deadlineInMs).filter((d): d is number => d !== null);
  if (deadlines.length === 0) return undefined;
  const furthest = Math.max(...deadlines);
  const bound = Math.max(0, view.ttlMs) + queue.length * opts.fairWaitMs;
  if (furthest <= bound) return undefined;
  return {
    severity: 'warning',
    code: 'queue-drift',
    key: view.key,
    node,
    message: `the last of ${queue.length} waiter(s) has a deadline in ${formatDuration(furthest)}, more than ${queue.length} × ${formatDuration(opts.fairWaitMs)} allowance beyond the lease: deadlines drifted ahead, so a dead waiter blocks everyone behind it that long. Clearing the queue makes live waiters queue again:`,
    fix: redisCli(target, 'DEL', companionWord(target, view.key, fairQueueKey), companionWord(target, view.key, fairTimeoutKey)),
  };
}

/**
 * A queued waiter listens on its own wake-up channel while it waits (Redisson does, and so does
 * our fair lock). A head nobody listens for has most likely died, and everyone behind it waits
 * until its deadline: seen here before that deadline passes, when it still matters.
 * Overdue heads are the decoder's `overdue-waiter`.
 */
function silentHead(view: LockView, node: string, target: FixTarget): Finding | undefined {
  const queue = view.queue ?? [];
  const head = queue[0];
  if (head?.subscribers !== 0 || head.deadlineInMs === null || head.deadlineInMs <= 0) return undefined;
  return {
    severity: 'warning',
    code: 'silent-queue-head',
    key: view.key,
    node,
    message: `the next waiter ${head.owner} does not listen on its wake-up channel, so its client is most likely gone, and the ${queue.length - 1} waiter(s) behind it wait until its deadline in ${formatDuration(head.deadlineInMs)}. A client that polls instead of subscribing looks the same; if it is gone, remove it:`,
    fix: removeWaitersFix(view, target, [head]),
  };
}

/** A lock-like name holding something no lock library writes (scenario lock-key-collision). */
function appData(view: LockView, node: string, target: FixTarget): Finding | undefined {
  if (view.kind !== 'not-a-lock' || !LOCK_LIKE_NAME.test(view.key) || view.warnings.some((w) => w.code === 'companion-key')) return undefined;
  const what = `a ${view.type}${view.size !== undefined ? ` of size ${view.size}` : ''}`;
  const string = view.type === 'string' ? ', or a hand-written lock set without an expiry (SETNX whose EXPIRE never ran)' : '';
  // A token's shape without TTL is no lock format either: every token library sets a TTL.
  const format = view.type === 'string' && view.ttlMs === -1 ? 'without TTL, which no lock library writes' : 'in no lock format';
  return {
    severity: 'warning',
    code: 'app-data-on-lock-name',
    key: view.key,
    node,
    message: `a lock-like name holding ${what} ${format}: application data${string}. No lock on this name can be taken while it exists (node-redlock never reaches quorum, Redisson gets WRONGTYPE). If it is stale, delete it; otherwise lock another name:`,
    fix: redisCli(target, 'DEL', keyWord(target, view.key)),
  };
}

/** Every finding for one decoded key. */
export function viewFindings(view: LockView, node: string, target: FixTarget, opts: DoctorOptions): Finding[] {
  if (!LOCK_KINDS.has(view.kind)) return [appData(view, node, target)].filter((f): f is Finding => f !== undefined);
  const fair = view.kind === 'fair' ? [queueDrift(view, node, target, opts), silentHead(view, node, target)] : [];
  return [...warningFindings(view, node, target), ...fair.filter((f): f is Finding => f !== undefined)];
}

/** Names the note on token-shaped strings lists before "and N more". */
const NOTE_EXAMPLES = 3;

/**
 * One note, not a finding, for every string without TTL that could be a token lock set without
 * expiry (decoder code `token-without-expiry`): every token library sets a TTL and application
 * data has the same shapes (session ids, digests), so nothing here is a problem to fix, yet a
 * SETNX whose EXPIRE never ran looks just like them.
 */
export function tokenWithoutExpiryNote(views: readonly LockView[]): string | undefined {
  // Sorted: the names given as examples stay the same from run to run, whatever SCAN's order.
  const keys = views.filter((v) => v.warnings.some((w) => w.code === 'token-without-expiry')).map((v) => printable(v.key)).sort();
  if (keys.length === 0) return undefined;
  const more = keys.length > NOTE_EXAMPLES ? `, and ${(keys.length - NOTE_EXAMPLES).toLocaleString('en-US')} more` : '';
  const count = keys.length === 1 ? '1 string without TTL has' : `${keys.length.toLocaleString('en-US')} strings without TTL have`;
  return `${count} the form of a token lock (${keys.slice(0, NOTE_EXAMPLES).join(', ')}${more}): read as application data, since every token library sets a TTL; if one is a lock set without expiry, redlock-cli inspect <key> --kind token shows its holder`;
}

/** A companion key found by SCAN, with what inspecting its lock's name showed. */
export interface CompanionFact {
  readonly key: string;
  readonly node: string;
  readonly companion: Companion;
  /** The lock it belongs to, decoded; `missing` / `not-a-lock` mean it is left over. */
  readonly lock: LockView;
}

/**
 * Companions whose lock is gone (read-hold timeout keys of a deleted hash, permit deadlines of a
 * deleted semaphore) or does not know them (a read-hold key of a holder the hash does not name).
 * A fencing counter outliving its lock is by design (tokens must keep increasing): doctor-fencing.ts
 * counts those whose lock is gone, without calling one an orphan to delete. A fair
 * queue without a lock still decodes as a free fair lock, whose queue the checks above judge.
 */
export function companionFindings(facts: readonly CompanionFact[], targetOf: (node: string) => FixTarget): Finding[] {
  const findings: Finding[] = [];
  for (const { key, node, companion, lock } of facts) {
    // Transient by design: the unlock latch, and python-redis-lock's wake-up list (1 s after a release).
    if (companion.role === 'fencing-counter' || companion.role === 'unlock-latch' || companion.role === 'wake-list') continue;
    const known =
      LOCK_KINDS.has(lock.kind) &&
      (companion.role !== 'read-hold-timeout' ||
        [...(lock.readers ?? []).flatMap((r) => r.timeoutKeys), ...(lock.orphanTimeoutKeys ?? [])].some((k) => k.key === key));
    // A rate limiter's keys belong to its config hash, which is no lock: known while it exists.
    if (known || (LIMITER_ROLES.has(companion.role) && lock.type === 'hash')) continue;
    const state = lock.kind === 'missing' ? 'is gone' : lock.kind === 'not-a-lock' ? `holds a ${lock.type}, not a lock` : 'does not count it';
    findings.push({
      severity: 'warning',
      code: 'orphan-companion',
      key,
      node,
      message: `${describeCompanion(companion)}, but that lock ${state}: left over${companion.role === 'read-hold-timeout' ? ' (a watchdog may still be renewing it, Redisson PR #7098)' : ''}. Delete it:`,
      fix: redisCli(targetOf(node), 'DEL', keyWord(targetOf(node), key)),
    });
  }
  return findings;
}

const LIMITER_ROLES: ReadonlySet<CompanionRole> = new Set(['rate-limiter-value', 'rate-limiter-permits']);

/** Errors first, then warnings, by key: the order doctor prints in. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || (a.key ?? '').localeCompare(b.key ?? ''));
}
