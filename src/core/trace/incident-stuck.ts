// The incident behind a `deadlock` finding (checker-stuck.ts): who kept the lock stuck, who waited,
// and the recorded facts a replay needs for its `why`: the stuck holder's lease and renewals, the
// hold count its release left, a fair queue's allowance, the live reader whose renewals kept a
// dead one in. Pure; incident-stuck-scenario.ts writes the scenario from it.

import type { Finding } from './checker.js';
import type { StuckWhy } from './checker-stuck.js';
import type { TraceEvent } from './events.js';
import { actorOf, type Incident, type IncidentActor, type IncidentFault, type IncidentResult } from './incident.js';

/** What a deadlock replay needs besides the incident's actors. */
export interface StuckFacts {
  readonly why: StuckWhy;
  /** The holder that kept the lock (the lock's previous holder for a dead queue head); none for a data key. */
  readonly holder: IncidentActor | undefined;
  /** dead-queue-head: the dead waiter at the head; orphan-hold: the live reader whose renewals kept it. */
  readonly third: IncidentActor | undefined;
  /** The waiter kept out. */
  readonly waiter: IncidentActor;
  /** count-left: the holds the owner took, and those its last release left. */
  readonly holds?: number;
  readonly countLeft?: number;
  /** dead-queue-head: the allowance between queued waiters' deadlines (Redisson's fairLockWaitTimeout), when seen. */
  readonly allowanceMs?: number;
}

const FAULT: Record<StuckWhy, IncidentFault> = { 'no-ttl': 'crash', 'count-left': 'count-left', 'dead-queue-head': 'crash', 'orphan-hold': 'crash', 'data-key': 'key-collision' };

const fail = (problem: string): { ok: false; problem: string } => ({ ok: false, problem });

/** Infers the incident behind a deadlock finding from its lock's events. */
export function stuckIncident(finding: Finding, number: number, events: readonly TraceEvent[]): IncidentResult {
  const why = finding.why;
  if (why === 'data-key') return dataKey(finding, number, events);
  const [stuckOwner, waiterOwner] = finding.owners;
  if (why === undefined || stuckOwner === undefined || waiterOwner === undefined) return fail(`${finding.kind} on ${finding.lock}: the finding names no stuck holder and waiter`);
  const origin = originOf(events, finding, stuckOwner, why);
  const window = events.filter((e) => e.t >= origin && e.t <= finding.to);
  const waiter = actorOf('B', waiterOwner, window);
  const base = { finding, number, lock: finding.lock, fault: FAULT[why], act: 'none' as const, origin, lossAt: finding.from, actAt: finding.to, events: window };
  switch (why) {
    case 'no-ttl': {
      if (events.find((e) => e.owner === stuckOwner)?.library !== 'token') return fail(`deadlock on ${finding.lock}: a lock without TTL replays as a token lock's SETNX, and this one is a Redisson hash`);
      const holder = actorOf('A', stuckOwner, window);
      return ok({ ...base, family: 'token', actors: [holder, waiter] }, { why, holder, third: undefined, waiter });
    }
    case 'count-left': {
      const holder = actorOf('A', stuckOwner, window);
      const holds = Math.max(2, ...window.filter((e) => e.owner === stuckOwner && e.kind === 'acquired').map((e) => e.count ?? 1));
      const left = window.filter((e) => e.owner === stuckOwner && e.kind === 'released' && (e.count ?? 0) > 0).at(-1)?.count ?? 1;
      return ok({ ...base, family: 'reentrant', actors: [holder, waiter] }, { why, holder, third: undefined, waiter, holds, countLeft: left });
    }
    case 'dead-queue-head': {
      // The holder before the lock fell free: the last one to release it before the finding.
      const previous = window.filter((e) => e.kind === 'released' && e.count === 0 && e.t <= finding.from && e.owner !== undefined).at(-1)?.owner;
      if (previous === undefined) return fail(`deadlock on ${finding.lock}: the holder before the dead queue head is not in the recording`);
      const holder = actorOf('A', previous, window);
      const head = actorOf('W1', stuckOwner, window);
      const joins = window.filter((e) => e.kind === 'queue-join' && e.deadline !== undefined).map((e) => e.deadline!);
      const allowanceMs = joins.length >= 2 ? joins[1]! - joins[0]! : undefined;
      const behind = { ...waiter, name: 'W2' };
      return ok({ ...base, family: 'fair', actors: [holder, head, behind] }, { why, holder, third: head, waiter: behind, ...(allowanceMs !== undefined ? { allowanceMs } : {}) });
    }
    case 'orphan-hold': {
      const dead = actorOf('R1', stuckOwner, window);
      const liveOwner = window.find((e) => e.kind === 'renewed' && e.owner !== stuckOwner && e.owner !== waiterOwner)?.owner;
      const live = liveOwner === undefined ? undefined : actorOf('R2', liveOwner, window);
      const writer = { ...waiter, name: 'W' };
      return ok({ ...base, family: 'read', actors: [dead, ...(live ? [live] : []), writer] }, { why, holder: dead, third: live, waiter: writer });
    }
  }
}

/** A lock named after application data: everyone refused on it waited; the first two are A and B. */
function dataKey(finding: Finding, number: number, events: readonly TraceEvent[]): IncidentResult {
  const window = events.filter((e) => e.t >= finding.from && e.t <= finding.to);
  const waiters = [...new Set(window.filter((e) => e.kind === 'refused' && e.owner !== undefined).map((e) => e.owner!))].slice(0, 2);
  const actors = waiters.map((o, i) => actorOf(i === 0 ? 'A' : 'B', o, window));
  const incident = { finding, number, lock: finding.lock, family: 'token' as const, fault: FAULT['data-key'], act: 'none' as const, actors, origin: finding.from, lossAt: finding.from, actAt: finding.to, events: window };
  return ok(incident, { why: 'data-key', holder: undefined, third: actors[1], waiter: actors[0]! });
}

function ok(incident: Omit<Incident, 'stuck'>, stuck: StuckFacts): IncidentResult {
  return { ok: true, incident: { ...incident, stuck } };
}

/**
 * Where the window starts: the stuck owner's last new hold before the finding (not a re-entry);
 * for a dead queue head, the last acquisition before it joined the queue (its predecessor's).
 */
function originOf(events: readonly TraceEvent[], finding: Finding, owner: string, why: StuckWhy): number {
  const before = events.filter((e) => e.t <= finding.from);
  const newHold = (e: TraceEvent) => (e.kind === 'acquired' || e.kind === 'reader-join') && (e.count ?? 1) <= 1;
  if (why !== 'dead-queue-head') return before.filter((e) => e.owner === owner && newHold(e)).at(-1)?.t ?? finding.from;
  const joined = before.filter((e) => e.kind === 'queue-join' && e.owner === owner).at(-1)?.t ?? finding.from;
  return before.filter((e) => newHold(e) && e.t <= joined).at(-1)?.t ?? joined;
}
