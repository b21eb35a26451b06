// Hand-written histories for the timeline and the scenario views: events spelled out in time
// order, ids handed out by the builder.

import { outcomeOf } from '../../../src/core/scenario/timing.js';
import type { ClientOp, History, HistoryEvent, OpEvent } from '../../../src/core/scenario/history.js';
import type { VariantRun } from '../../../src/core/scenario/run.js';
import type { Violation, ViolationKind } from '../../../src/core/scenario/verdict.js';
import { matchesExpectation } from '../../../src/core/scenario/verdict.js';

type Extra = Partial<Omit<OpEvent, 'kind' | 't' | 'client' | 'op' | 'phase' | 'id'>>;

/** Builds a history; `ok` records an invoke and its completion, `invoke` one that never completes. */
export function events(clients: string[], nodes: string[] = []) {
  const list: HistoryEvent[] = [];
  let id = 0;
  const builder = {
    op(client: string, op: ClientOp, from: number, to: number, extra: Extra = {}, phase: 'ok' | 'fail' = 'ok') {
      const n = ++id;
      list.push({ kind: 'op', t: from, client, op, phase: 'invoke', id: n });
      list.push({ kind: 'op', t: to, client, op, phase, id: n, ...extra });
      return builder;
    },
    fail(client: string, op: ClientOp, from: number, to: number, extra: Extra = {}) {
      return builder.op(client, op, from, to, extra, 'fail');
    },
    invoke(client: string, op: ClientOp, t: number, extra: Extra = {}) {
      list.push({ kind: 'op', t, client, op, phase: 'invoke', id: ++id, ...extra });
      return builder;
    },
    fault(node: string, verb: string, t: number, detail?: string) {
      const n = ++id;
      list.push({ kind: 'fault', t, node, verb, phase: 'invoke', id: n });
      list.push({ kind: 'fault', t: t + 1, node, verb, phase: 'ok', id: n, ...(detail !== undefined ? { detail } : {}) });
      return builder;
    },
    server(node: string, t: number, holders: string[], ttlMs = 1000) {
      list.push({ kind: 'server', t, node, holders, ttlMs });
      return builder;
    },
    note(lane: string, t: number, text: string) {
      list.push({ kind: 'note', t, lane, text });
      return builder;
    },
    lost(client: string, t: number, reason: string) {
      list.push({ kind: 'lock-lost', t, client, reason });
      return builder;
    },
    renewed(client: string, t: number, renewals: number) {
      list.push({ kind: 'renewed', t, client, renewals });
      return builder;
    },
    end(t: number, counter = 0) {
      list.push({ kind: 'end', t, counter, register: {} });
      return builder;
    },
    build(): History {
      // Stable: events at the same time keep the order they were written in.
      return { clients, nodes, events: [...list].sort((a, b) => a.t - b.t) };
    },
  };
  return builder;
}

/**
 * S4-like: A takes the lock and pauses past its lease, B takes it over, A wakes and writes; C
 * waits and crashes; n1 is the server, n2 is killed and restarted.
 */
export function pauseHistory(): History {
  return events(['A', 'B', 'C'], ['n1', 'n2', 'n3'])
    .op('A', 'acquire', 0, 10, { leaseMs: 1000, token: 33 })
    .server('n1', 11, ['A'])
    .op('A', 'enter', 20, 21)
    .op('A', 'pause', 100, 1600, { detail: 'for 1.50 s' })
    .op('B', 'acquire', 200, 1020, { leaseMs: 2000, token: 34 })
    .fault('n2', 'kill', 300)
    .server('n1', 1010, [])
    .server('n1', 1021, ['B'], 2000)
    .op('B', 'enter', 1100, 1101)
    .op('B', 'write', 1200, 1210, { token: 34, value: 2, accepted: true, held: true })
    .fault('n2', 'restart', 1300)
    .op('A', 'write', 1610, 1620, { token: 33, value: 1, accepted: true, held: false })
    .op('A', 'leave', 1690, 1700)
    .fail('A', 'release', 1710, 1712, { detail: 'not owner' })
    .invoke('C', 'acquire', 1800)
    .invoke('C', 'crash', 1900)
    .op('B', 'leave', 1990, 2000)
    .op('B', 'release', 2009, 2010)
    .server('n1', 2011, [])
    .end(2500)
    .build();
}

export const staleWrite: Violation = {
  kind: 'stale-write',
  clients: ['A', 'B'],
  from: 1620,
  to: 1620,
  message: "A's write with token 33 was accepted after B's write with token 34: the register took a stale write",
};
export const bothInSection: Violation = {
  kind: 'mutual-exclusion',
  clients: ['A', 'B'],
  from: 1101,
  to: 1700,
  message: 'A and B were both in the critical section for 599 ms',
};

/** A finished variant around a history; `matched` computed as the runner would. */
export function variantRun(variant: string, history: History, violations: Violation[], expected: ViolationKind[], description = `the ${variant} way`): VariantRun {
  const verdict = { violations };
  const matched = matchesExpectation(verdict, expected);
  const timing = { toleranceMs: 50, measured: 0 };
  return { variant, description, expected, verdict, matched, outcome: outcomeOf(matched, timing), timing, attempts: 1, history, durationMs: history.events.at(-1)?.t ?? 0 };
}
