// From a trace's history to what happened in one incident: which finding, on which lock, who
// took part (the owner that went on without the lock first, then the others in the order they
// took it), each one's lease and renewal cadence, and the fault that explains the history. Pure:
// `trace --from FILE --scenario OUT` writes a replayable scenario from it (incident-scenario.ts).

import { replayable, type Finding } from './checker.js';
import { stuckIncident, type StuckFacts } from './incident-stuck.js';
import { shortClient, type TraceClient, type TraceEvent } from './events.js';
import { traceTime } from './format.js';
import { realTime } from './clock-steps.js';
import { starvedIncident } from './incident-starvation.js';

/**
 * What explains the history. `pause`: the holder renewed, then sent nothing for longer than its
 * lease (a GC pause, SIGSTOP, a partition). `expiry-before-release`: a fixed lease ran out while its
 * owner still worked. `foreign-delete`: a client that never held the lock deleted it.
 * `failover`: the lock was absent on a promoted primary. `clock-step`: the key was gone before
 * its lease could have run out, and nothing deleted it (the server's clock moved forward).
 * `reader-stream` and `hung-holder`: a waiter starved by overtaking readers, or by a holder that
 * only renewed (incident-starvation.ts). `crash`, `count-left` and `key-collision` explain a
 * deadlock (incident-stuck.ts): a holder or queued waiter that died and left the lock stuck, a
 * release that left a reentrant hold count above 0, a lock named after a key that holds
 * application data.
 */
export const INCIDENT_FAULTS = ['pause', 'expiry-before-release', 'foreign-delete', 'failover', 'clock-step', 'reader-stream', 'hung-holder', 'crash', 'count-left', 'key-collision'] as const;
export type IncidentFault = (typeof INCIDENT_FAULTS)[number];

/** What the first actor did after its loss, as if it still held the lock. */
export type StaleAct = 'renew' | 'release' | 'delete' | 'reset' | 'none';

/** The lock families a scenario can replay: Redisson's hash layout (a fair lock's with its queue), or a plain token. */
export type IncidentFamily = 'reentrant' | 'fenced' | 'read' | 'token' | 'fair';

export interface IncidentActor {
  /** The scenario's client name: A, B, C, ... (D for a deleter that never held the lock). */
  readonly name: string;
  /** The owner id; undefined for a deleter that never held the lock. */
  readonly owner: string | undefined;
  /** Who it was in the trace, for the narration: a client name, an address, a short owner. */
  readonly seenAs: string;
  /** Server ms it acquired (in the window); undefined when it never did. */
  readonly acquiredAt: number | undefined;
  /** The lease it set at its acquisition; undefined: no TTL, or never acquired. */
  readonly leaseMs: number | undefined;
  /** Median time between its renewals, when it renewed. */
  readonly renewEveryMs: number | undefined;
  /** It renewed, or tried to: a watchdog or a refresh timer kept its lease. */
  readonly renews: boolean;
  /** Server ms its hold ended (released, expired, deleted, lost), when seen. */
  readonly endedAt: number | undefined;
}

export interface Incident {
  readonly finding: Finding;
  /** 1-based, among the recording's unsafe findings. */
  readonly number: number;
  readonly lock: string;
  readonly family: IncidentFamily;
  readonly fault: IncidentFault;
  readonly act: StaleAct;
  /** A, the owner that lost the lock (or held it, for a foreign delete), then the others. */
  readonly actors: readonly IncidentActor[];
  /** Server ms: A's acquisition, the window's start. */
  readonly origin: number;
  /** Server ms the lock was lost (the lease's end, the delete, the failover, the early expiry). */
  readonly lossAt: number;
  /** Server ms of A's stale act, or of the delete. */
  readonly actAt: number;
  /** pause: server ms of A's last traffic before its loss. */
  readonly silentFrom?: number;
  /** clock-step: how much earlier than its lease allowed the key was gone. */
  readonly aheadMs?: number;
  /** The events of the lock in the window, in order. */
  readonly events: readonly TraceEvent[];
  /** A deadlock's own facts (incident-stuck.ts); absent for the unsafe findings. */
  readonly stuck?: StuckFacts;
}

/** Which finding to turn into a scenario: the first unsafe one, the n-th (1-based), or the one at a moment. */
export type IncidentPick = { readonly finding?: number; readonly at?: number };

export type IncidentResult = { readonly ok: true; readonly incident: Incident } | { readonly ok: false; readonly problem: string };

const MAX_ACTORS = 4;
const NAMES = ['A', 'B', 'C', 'E', 'F'];
// An expiry this much earlier than the lease allows is not the trace's rounding: the key went early.
const EARLY_SLACK_MS = 20;

/** Infers the incident behind one unsafe finding of a recording's events and findings. */
export function inferIncident(events: readonly TraceEvent[], findings: readonly Finding[], pick: IncidentPick = {}): IncidentResult {
  const unsafe = findings.filter(replayable);
  const chosen = chooseFinding(unsafe, findings, pick);
  if (!chosen.ok) return chosen;
  const { finding, number } = chosen;
  // A recorded clock step is undone first: a key its step cut short then expired early, as it did.
  const lockEvents = realTime(events.filter((e) => e.lock === finding.lock), events);
  if (lockEvents.some((e) => e.library === 'semaphore')) return fail(`${finding.kind} on ${finding.lock} is a semaphore's: scenarios replay locks, not semaphores`);
  if (finding.kind === 'starvation') return starvedIncident(finding, number, lockEvents);
  if (finding.kind === 'deadlock') return stuckIncident(finding, number, lockEvents);
  return finding.kind === 'foreign-delete' ? foreignDelete(finding, number, lockEvents) : lost(finding, number, lockEvents, events);
}

/** The unsafe finding `pick` names (1-based number among the unsafe ones), or why there is none. */
export function chooseFinding(unsafe: readonly Finding[], all: readonly Finding[], pick: IncidentPick): { ok: true; finding: Finding; number: number } | { ok: false; problem: string } {
  if (unsafe.length === 0) {
    const warnings = [...new Set(all.map((f) => f.kind))];
    return fail(`no unsafe finding in the recording${warnings.length > 0 ? ` (only warnings: ${warnings.join(', ')})` : ''}: nothing to replay`);
  }
  if (pick.finding !== undefined) {
    const f = unsafe[pick.finding - 1];
    return f ? { ok: true, finding: f, number: pick.finding } : fail(`--finding ${pick.finding}: the recording has ${unsafe.length} unsafe finding${unsafe.length === 1 ? '' : 's'}`);
  }
  if (pick.at !== undefined) {
    const at = pick.at;
    const distance = (f: Finding) => (at < f.from ? f.from - at : at > f.to ? at - f.to : 0);
    const best = [...unsafe].sort((a, b) => distance(a) - distance(b))[0]!;
    if (distance(best) > 1000) return fail(`no unsafe finding within 1 s of ${traceTime(at)}; the nearest, ${best.kind} on ${best.lock}, runs ${traceTime(best.from)} to ${traceTime(best.to)}`);
    return { ok: true, finding: best, number: unsafe.indexOf(best) + 1 };
  }
  return { ok: true, finding: unsafe[0]!, number: 1 };
}

const fail = (problem: string): { ok: false; problem: string } => ({ ok: false, problem });
const isAcquired = (e: TraceEvent) => e.kind === 'acquired' || e.kind === 'reader-join';
const ENDS: ReadonlySet<string> = new Set(['released', 'reader-leave', 'expired', 'deleted', 'force-unlocked', 'lost-in-failover', 'release-refused']);
/**
 * Where an owner's work under the lock ended: its last release, the end of its hold, or its refused
 * release when its lock was taken from it meanwhile (it went on until then).
 */
const endsWork = (e: TraceEvent, owner: string | undefined): boolean => e.owner === owner && ENDS.has(e.kind) && (e.kind !== 'released' || e.count === 0);

/** An owner's last acquisition at or before `t` (a new hold, not a re-entry or an overwrite). */
function acquisitionBefore(events: readonly TraceEvent[], owner: string, t: number): TraceEvent | undefined {
  return events.filter((e) => isAcquired(e) && e.owner === owner && e.t <= t && !e.overwrite).at(-1);
}

/** A lost its lock (expiry, failover, early expiry) and went on: every unsafe kind but a foreign delete. */
function lost(finding: Finding, number: number, events: readonly TraceEvent[], all: readonly TraceEvent[]): IncidentResult {
  const owner = finding.owners[0]!;
  const acquired = acquisitionBefore(events, owner, finding.from);
  if (!acquired) return fail(`${finding.kind} on ${finding.lock}: its owner's acquisition is not in the recording (it held the lock before the trace began), so its lease is unknown`);
  const loss = events.find((e) => e.t >= acquired.t && e.owner === owner && (e.kind === 'expired' || e.kind === 'lost-in-failover'));
  if (!loss) return fail(`${finding.kind} on ${finding.lock}: no expiry or failover of its owner's hold was seen after its acquisition at ${traceTime(acquired.t)}`);
  const after = events.filter((e) => e.t >= loss.t && e.owner === owner);
  const act = staleAct(after, finding);
  const actAt = act.event?.t ?? finding.to;
  const renewals = events.filter((e) => e.owner === owner && e.kind === 'renewed' && e.t >= acquired.t && e.t <= loss.t);
  const computedEnd = (renewals.at(-1) ?? acquired).t + (renewals.at(-1)?.leaseMs ?? acquired.leaseMs ?? Number.POSITIVE_INFINITY);
  const failedOver = loss.kind === 'lost-in-failover' || all.some((e) => e.kind === 'failover' && e.t >= acquired.t && e.t <= loss.t);
  let fault: IncidentFault;
  let extra: { silentFrom?: number; aheadMs?: number } = {};
  if (failedOver) fault = 'failover';
  else if (loss.t < computedEnd - EARLY_SLACK_MS) {
    fault = 'clock-step';
    extra = { aheadMs: computedEnd - loss.t };
  } else if (renewals.length > 0 || act.kind === 'renew') {
    // A holder that renews and let its lease run out went silent for longer than the lease.
    fault = 'pause';
    extra = { silentFrom: events.filter((e) => e.owner === owner && e.t < loss.t).at(-1)?.t ?? acquired.t };
  } else fault = 'expiry-before-release';
  const others = othersAfter(events, loss.t, actAt, [finding.owners[1]].filter((o): o is string => o !== undefined && o !== owner), owner);
  const end = windowEnd(events, others, actAt);
  const window = events.filter((e) => e.t >= acquired.t && e.t <= end);
  const actors = [actorOf('A', owner, window), ...others.map((o, i) => actorOf(NAMES[i + 1]!, o, window))];
  return { ok: true, incident: { finding, number, lock: finding.lock, family: familyOf(acquired), fault, act: act.kind, actors, origin: acquired.t, lossAt: loss.t, actAt, ...extra, events: window } };
}

/** What the owner did after its loss: its first refused renewal or release, a write without NX, a plain DEL. */
function staleAct(after: readonly TraceEvent[], finding: Finding): { kind: StaleAct; event: TraceEvent | undefined } {
  if (finding.kind === 'silent-reacquire') return { kind: 'reset', event: after.find((e) => isAcquired(e) && e.overwrite) };
  const e = after.find((x) => x.kind === 'renew-refused' || x.kind === 'release-refused');
  if (!e) return { kind: 'none', event: undefined };
  return { kind: e.kind === 'renew-refused' ? 'renew' : 'release', event: e };
}

/** Owners that acquired after `from` up to `until` (and the ones named first), at most MAX_ACTORS - 1, in the order they took it. */
function othersAfter(events: readonly TraceEvent[], from: number, until: number, first: readonly string[], besides: string): string[] {
  const found = [...first];
  for (const e of events) {
    if (found.length >= MAX_ACTORS - 1) break;
    if (isAcquired(e) && e.t >= from && e.t <= until && e.owner !== undefined && e.owner !== besides && !found.includes(e.owner)) found.push(e.owner);
  }
  return found.sort((a, b) => (firstAcquired(events, a, from) ?? 0) - (firstAcquired(events, b, from) ?? 0));
}

const firstAcquired = (events: readonly TraceEvent[], owner: string, from: number) => events.find((e) => isAcquired(e) && e.owner === owner && e.t >= from)?.t;

/** The window ends when the others' holds that began in it ended (or at the stale act, when they outlast the recording). */
function windowEnd(events: readonly TraceEvent[], others: readonly string[], actAt: number): number {
  let end = actAt;
  for (const o of others) {
    const from = firstAcquired(events, o, Number.NEGATIVE_INFINITY) ?? actAt;
    end = Math.max(end, from);
    const ended = events.find((e) => e.t >= from && endsWork(e, o) && e.kind !== 'expired');
    if (ended) end = Math.max(end, ended.t);
  }
  return end;
}

/** The lock family of an acquisition: a reader is a read lock, other Redisson hashes reentrant locks, a plain value a token lock. */
function familyOf(acquired: TraceEvent): IncidentFamily {
  if (acquired.library === 'token') return 'token';
  if (acquired.fenced) return 'fenced';
  return acquired.shared ? 'read' : 'reentrant';
}

/** An actor's part in the window: acquisition, lease, renewal cadence, end. */
export function actorOf(name: string, owner: string | undefined, window: readonly TraceEvent[], client?: TraceClient): IncidentActor {
  const own = owner === undefined ? [] : window.filter((e) => e.owner === owner);
  const acquired = own.find((e) => isAcquired(e) && !e.overwrite);
  const renewals = own.filter((e) => e.kind === 'renewed').map((e) => e.t);
  const gaps = renewals.map((t, i) => t - (i === 0 ? (acquired?.t ?? t) : renewals[i - 1]!)).filter((g) => g > 0).sort((a, b) => a - b);
  const ended = own.find((e) => acquired !== undefined && e.t >= acquired.t && endsWork(e, owner) && e.kind !== 'expired');
  const seen: Pick<TraceEvent, 'owner' | 'client'> = own[0] ?? { ...(owner !== undefined ? { owner } : {}), ...(client ? { client } : {}) };
  return {
    name,
    owner,
    seenAs: shortClient(seen),
    acquiredAt: acquired?.t,
    leaseMs: acquired?.leaseMs,
    renewEveryMs: gaps.length > 0 ? gaps[Math.floor(gaps.length / 2)] : undefined,
    renews: own.some((e) => e.kind === 'renewed' || e.kind === 'renew-refused'),
    endedAt: ended?.t,
  };
}

/**
 * A held lock deleted by a plain command. When the deleting connection held this lock before and
 * lost it, that owner went on as holder and its release deleted the next holder's lock: an expiry
 * before release (or a pause, when it renewed) with an unchecked release. Otherwise someone who
 * never held it deleted it: a foreign delete.
 */
function foreignDelete(finding: Finding, number: number, events: readonly TraceEvent[]): IncidentResult {
  const victim = finding.owners[0]!;
  const deletedAt = finding.from;
  const addr = finding.clients[0]?.addr;
  const former = addr === undefined ? undefined : events.filter((e) => isAcquired(e) && e.t < deletedAt && e.client?.addr === addr && e.owner !== victim).at(-1);
  if (former?.owner !== undefined) {
    const owner = former.owner;
    const loss = events.find((e) => e.t >= former.t && e.t <= deletedAt && e.owner === owner && e.kind === 'expired');
    if (loss) {
      const renewed = events.some((e) => e.owner === owner && e.kind === 'renewed' && e.t >= former.t && e.t <= loss.t);
      const others = othersAfter(events, loss.t, deletedAt + (former.leaseMs ?? 1000) * 4, [victim], owner);
      const end = windowEnd(events, others, deletedAt);
      const window = events.filter((e) => e.t >= former.t && e.t <= end);
      const actors = [actorOf('A', owner, window), ...others.map((o, i) => actorOf(NAMES[i + 1]!, o, window))];
      const silentFrom = renewed ? events.filter((e) => e.owner === owner && e.t < loss.t).at(-1)?.t : undefined;
      const fault: IncidentFault = renewed ? 'pause' : 'expiry-before-release';
      return { ok: true, incident: { finding, number, lock: finding.lock, family: familyOf(former), fault, act: 'delete', actors, origin: former.t, lossAt: loss.t, actAt: deletedAt, ...(silentFrom !== undefined ? { silentFrom } : {}), events: window } };
    }
  }
  const acquired = acquisitionBefore(events, victim, deletedAt);
  if (!acquired) return fail(`foreign-delete on ${finding.lock}: the deleted holder's acquisition is not in the recording (it held the lock before the trace began)`);
  const others = othersAfter(events, deletedAt, deletedAt + (acquired.leaseMs ?? 1000) * 2, [], victim);
  const end = windowEnd(events, [victim, ...others], deletedAt);
  const window = events.filter((e) => e.t >= acquired.t && e.t <= end);
  const deleter = actorOf('D', undefined, window, finding.clients[0]);
  const actors = [actorOf('A', victim, window), ...others.map((o, i) => actorOf(NAMES[i + 1]!, o, window)), deleter];
  return { ok: true, incident: { finding, number, lock: finding.lock, family: familyOf(acquired), fault: 'foreign-delete', act: 'delete', actors, origin: acquired.t, lossAt: deletedAt, actAt: deletedAt, events: window } };
}

/** `HH:MM:SS[.mmm]` (the time of day trace prints, UTC) on the recording's first day, or an ISO date and time; undefined when neither. */
export function parseMoment(text: string, firstEventT: number): number | undefined {
  const clock = /^(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(text.trim());
  if (clock) {
    const [h, m, s] = [Number(clock[1]), Number(clock[2]), Number(clock[3])];
    if (h > 23 || m > 59 || s > 59) return undefined;
    const day = Math.floor(firstEventT / 86_400_000) * 86_400_000;
    return day + ((h * 60 + m) * 60 + s) * 1000 + Number((clock[4] ?? '0').padEnd(3, '0'));
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text.trim())) return undefined;
  const t = Date.parse(text);
  return Number.isFinite(t) ? t : undefined;
}
