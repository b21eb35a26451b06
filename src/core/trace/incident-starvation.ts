// The incident behind a starvation finding (checker-starvation.ts): who waited, who kept it out,
// and which of the two shapes the checker proved. `reader-stream`: holds that began after the
// waiter asked kept the lock held (readers overtaking a writer). `hung-holder`: the holder it
// waited for only renewed its lease (a hung worker whose watchdog lives on).

import type { Finding } from './checker.js';
import type { TraceClient, TraceEvent } from './events.js';
import { actorOf, type Incident, type IncidentResult } from './incident.js';

/** One hold of an owner, from its acquisition to its end (undefined: still held at the recording's end). */
export interface Hold {
  readonly owner: string;
  readonly client: TraceClient | undefined;
  readonly from: number;
  readonly to: number | undefined;
  readonly leaseMs: number | undefined;
  readonly shared: boolean;
}

const ENDS: ReadonlySet<string> = new Set(['expired', 'deleted', 'force-unlocked', 'lost-in-failover']);
/** Readers named in a replay besides the waiter: a reader client holds one read at a time, and three keep a stream going. */
export const MAX_READERS = 3;

/** Every hold of a lock's events, in the order they began (a re-entry adds to its hold). */
export function holdsOf(events: readonly TraceEvent[]): Hold[] {
  const open = new Map<string, { -readonly [K in keyof Hold]: Hold[K] }>();
  const all: Hold[] = [];
  for (const e of events) {
    const owner = e.owner;
    if ((e.kind === 'acquired' || e.kind === 'reader-join') && owner !== undefined && !open.has(owner)) {
      const hold = { owner, client: e.client, from: e.t, to: undefined, leaseMs: e.leaseMs, shared: e.shared === true };
      open.set(owner, hold);
      all.push(hold);
    } else if ((e.kind === 'released' || e.kind === 'reader-leave') && e.count === 0 && owner !== undefined) {
      close(owner, e.t);
    } else if (ENDS.has(e.kind)) {
      for (const o of e.kind === 'expired' || e.kind === 'lost-in-failover' ? [owner] : [...open.keys()]) if (o !== undefined) close(o, e.t);
    }
  }
  return all;

  function close(owner: string, t: number): void {
    const hold = open.get(owner);
    if (hold) hold.to = t;
    open.delete(owner);
  }
}

/** A starvation finding's incident: the waiter (W or B), the holders it waited for, the shape. */
export function starvedIncident(finding: Finding, number: number, events: readonly TraceEvent[]): IncidentResult {
  const waiter = finding.owners[0]!;
  const holds = holdsOf(events).filter((h) => h.owner !== waiter && h.from <= finding.to && (h.to ?? Number.POSITIVE_INFINITY) >= finding.from);
  const heldAtStart = holds.filter((h) => h.from <= finding.from);
  if (heldAtStart.length === 0) return { ok: false, problem: `starvation on ${finding.lock}: the holds that kept its waiter out began before the recording, so their leases are unknown` };
  const overtaken = holds.some((h) => h.from > finding.from);
  const origin = Math.min(...heldAtStart.map((h) => h.from));
  const waiterEnd = events.find((e) => e.owner === waiter && e.t >= finding.to && ((e.kind === 'released' && e.count === 0) || e.kind === 'expired'))?.t ?? finding.to;
  const window = events.filter((e) => e.t >= origin && e.t <= waiterEnd);
  const others = [...new Set(holds.map((h) => h.owner))];
  const actors = overtaken
    ? [actorOf('W', waiter, window), ...others.slice(0, MAX_READERS).map((o, i) => actorOf(`R${i + 1}`, o, window))]
    : [actorOf('A', others[0], window), actorOf('B', waiter, window)];
  const family = overtaken || heldAtStart[0]!.shared ? 'read' : events.find((e) => e.owner === others[0])?.library === 'token' ? 'token' : 'reentrant';
  const incident: Incident = { finding, number, lock: finding.lock, family, fault: overtaken ? 'reader-stream' : 'hung-holder', act: 'none', actors, origin, lossAt: finding.from, actAt: finding.to, events: window };
  return { ok: true, incident };
}
