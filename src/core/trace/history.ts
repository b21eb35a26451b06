// Trace events as a scenario history, so the scenario timeline (text chart and ink swimlane) draws
// a trace with the same lanes: one per client (waiting, holding, renewals, refusals, losses) and
// one per lock showing who the server had as its holder. A trace of independent Redlock primaries
// (events carry `node`) gets a lane per node instead: who held the lock on that node, the periods
// the trace was blind there (a restart) and its clock steps. Times become ms since `origin`, each
// node's on the common scale the quorum checker judges by (clock-steps.ts's NodeTimes: after a
// clock step, the node's times less the step), so its events line up with the other nodes' and
// with the findings. Lane names are drawn on a terminal, so names from Redis are escaped here.

import { printable } from '../decode/escape.js';
import type { History, HistoryEvent } from '../scenario/history.js';
import type { ViolationLike } from '../scenario/timeline.js';
import type { Finding } from './checker.js';
import { NodeTimes } from './clock-steps.js';
import { isNodeEvent, shortOwner, type TraceEvent } from './events.js';
import { formatDuration } from '../duration.js';

export interface TraceHistory {
  readonly history: History;
  readonly violations: readonly ViolationLike[];
  /** Lane name of each owner seen. */
  readonly lanes: ReadonlyMap<string, string>;
  /** The nodes' clock steps the lanes were drawn with: an event's place is `times.comparable(e.node, e.t)`. */
  readonly times: NodeTimes;
}

/** The lane an event's owner is drawn on: the client's name, its port, or a short owner (escaped). */
export function laneOf(e: Pick<TraceEvent, 'client' | 'owner'>): string {
  if (e.client?.name) return printable(e.client.name);
  const port = /:(\d+)$/.exec(e.client?.addr ?? '');
  return port ? `:${port[1]}` : printable(shortOwner(e.owner ?? '?'));
}

/** Converts events (and the findings on them) to a history starting at `origin` (default: the first event). */
export function traceHistory(events: readonly TraceEvent[], findings: readonly Finding[] = [], origin = events[0]?.t ?? 0): TraceHistory {
  const out: HistoryEvent[] = [];
  const lanes = new Map<string, string>();
  const clients: string[] = [];
  const nodes: string[] = [];
  const waiting = new Map<string, number>();
  let id = 0;
  const times = NodeTimes.of(events);
  const since = (t: number) => Math.max(0, t - origin);
  const at = (e: Pick<TraceEvent, 't' | 'node'>) => since(times.comparable(e.node, e.t));
  // Lanes by client: two connections with the same name (two processes of one service) get their ports.
  const laneHolder = new Map<string, string>();
  const laneFor = (e: TraceEvent, owner = e.owner ?? '?') => {
    let lane = lanes.get(owner);
    if (lane === undefined) {
      const client = e.client && owner === e.owner ? e.client : undefined;
      const who = client?.addr ?? owner;
      lane = laneOf({ owner, ...(client ? { client } : {}) });
      const taken = laneHolder.get(lane);
      if (taken !== undefined && taken !== who) lane = laneOf({ owner, ...(client?.addr ? { client: { addr: client.addr } } : {}) });
      laneHolder.set(lane, who);
      lanes.set(owner, lane);
    }
    if (!clients.includes(lane)) clients.push(lane);
    return lane;
  };
  const op = (e: TraceEvent, client: string, kind: 'acquire' | 'release' | 'renew', phase: 'invoke' | 'ok' | 'fail', opId: number, extra: object = {}) =>
    out.push({ kind: 'op', t: at(e), client, op: kind, phase, id: opId, ...extra });
  const lost = (e: TraceEvent, client: string, reason: string) => out.push({ kind: 'lock-lost', t: at(e), client, reason });
  const renewals = new Map<string, number>();
  // The server lane of an event: its node's on independent primaries (each holds its own copy of
  // every lock, so a node lane holds one map per lock), else its lock's.
  const severalLocks = new Set(events.filter((e) => e.node !== undefined && !isNodeEvent(e)).map((e) => e.lock)).size > 1;
  const serverLane = (e: Pick<TraceEvent, 'lock' | 'node'>) => printable(e.node ?? e.lock);
  const heldOnLane = new Map<string, Map<string, Map<string, string>>>();
  const server = (e: TraceEvent) => {
    const lane = serverLane(e);
    let locks = heldOnLane.get(lane);
    if (!locks) heldOnLane.set(lane, (locks = new Map()));
    let held = locks.get(e.lock);
    if (!held) locks.set(e.lock, (held = new Map<string, string>()));
    if (!nodes.includes(lane)) nodes.push(lane);
    return held;
  };
  const holdsOnAnotherNode = (e: TraceEvent): boolean =>
    e.node !== undefined && [...heldOnLane].some(([lane, locks]) => lane !== serverLane(e) && locks.get(e.lock)?.has(e.owner!) === true);
  const serverRead = (e: TraceEvent, held: Map<string, string>) => {
    const lane = serverLane(e);
    const all = [...heldOnLane.get(lane)!].flatMap(([lock, h]) => [...h.values()].map((who) => (severalLocks ? `${who} on ${printable(lock)}` : who)));
    out.push({ kind: 'server', t: at(e), node: lane, holders: [...new Set(all)], ttlMs: all.length === 0 ? -2 : held.size > 0 ? (e.leaseMs ?? -1) : -1 });
  };

  for (const e of events) {
    if (e.node !== undefined && isNodeEvent(e)) {
      // A node's blind period (until unblind) and its clock steps, on its lane.
      if (!nodes.includes(serverLane(e))) nodes.push(serverLane(e));
      const detail = e.stepMs !== undefined ? { detail: `+${formatDuration(e.stepMs)}` } : {};
      out.push({ kind: 'fault', t: at(e), node: serverLane(e), verb: e.kind, phase: 'invoke', id: ++id, ...detail });
      continue;
    }
    if (e.owner === undefined && !['deleted', 'force-unlocked'].includes(e.kind)) continue;
    const held = server(e);
    switch (e.kind) {
      case 'attempt':
      case 'refused':
      case 'queue-join': {
        const lane = laneFor(e);
        const key = `${lane}\u0000${e.lock}`;
        if (!waiting.has(key)) {
          waiting.set(key, ++id);
          op(e, lane, 'acquire', 'invoke', id);
        }
        break;
      }
      case 'acquired':
      case 'reader-join': {
        const lane = laneFor(e);
        if (held.has(e.owner!)) break; // re-entry
        // A Redlock client's next vote: it has been holding (as far as it knows) since its first.
        if (!holdsOnAnotherNode(e)) {
          const key = `${lane}\u0000${e.lock}`;
          const opId = waiting.get(key) ?? ++id;
          if (!waiting.has(key)) op(e, lane, 'acquire', 'invoke', opId);
          waiting.delete(key);
          op(e, lane, 'acquire', 'ok', opId, { ...(e.leaseMs !== undefined ? { leaseMs: e.leaseMs } : {}), ...(e.shared ? { shared: true } : {}) });
        }
        held.set(e.owner!, lane);
        serverRead(e, held);
        break;
      }
      case 'renewed': {
        const lane = laneFor(e);
        const n = (renewals.get(lane) ?? 0) + 1;
        renewals.set(lane, n);
        out.push({ kind: 'renewed', t: at(e), client: lane, renewals: n });
        break;
      }
      case 'renew-refused':
      case 'release-refused': {
        const opId = ++id;
        const kind = e.kind === 'renew-refused' ? 'renew' : 'release';
        op(e, laneFor(e), kind, 'invoke', opId);
        op(e, laneFor(e), kind, 'fail', opId, { detail: 'NOT OWNER' });
        break;
      }
      case 'released':
      case 'reader-leave': {
        if (e.count !== 0) break;
        const opId = ++id;
        op(e, laneFor(e), 'release', 'invoke', opId);
        op(e, laneFor(e), 'release', 'ok', opId);
        held.delete(e.owner!);
        serverRead(e, held);
        break;
      }
      case 'expired':
      case 'lost-in-failover':
        // One node losing a Redlock client's key leaves it holding while its other nodes still do.
        if (!holdsOnAnotherNode(e)) lost(e, laneFor(e), e.kind === 'expired' ? 'the lease ran out' : 'absent on the promoted primary');
        held.delete(e.owner!);
        serverRead(e, held);
        break;
      case 'deleted':
      case 'force-unlocked':
        for (const owner of e.holders ?? []) lost(e, laneFor(e, owner), e.kind === 'deleted' ? `deleted by ${(e.command ?? ['DEL'])[0]}` : 'force-unlocked');
        held.clear();
        serverRead(e, held);
        break;
      default:
        break;
    }
  }
  const violations = findings.map((f) => ({
    kind: f.kind,
    from: since(f.from),
    to: since(f.to),
    clients: f.owners.map((o) => lanes.get(o) ?? printable(shortOwner(o))),
    message: f.message,
  }));
  return { history: { clients, nodes, events: out }, violations, lanes, times };
}
