// stale-holder and stale-write: acting on a lock the client no longer has. A write the resource
// rejected (accepted: false) is fencing doing its job and never counts.

import { at, names, violation } from './checker-format.js';
import type { OpSpan, Intervals } from './checker-intervals.js';
import type { History, OpEvent, ServerEvent } from './history.js';
import type { Violation } from './verdict.js';

/** An enter ok, or an accepted write / incr ok, whose out-of-band read said the server no longer had this client as holder. */
export function checkStaleHolder(history: History, intervals: Intervals): Violation[] {
  const found: Violation[] = [];
  for (const s of intervals.spans) {
    const done = s.done;
    if (done?.phase !== 'ok' || done.held !== false) continue;
    if (s.op !== 'enter' && !((s.op === 'write' || s.op === 'incr') && done.accepted !== false)) continue;
    const others = serverHolders(history, intervals, done.t).filter((c) => c !== s.client);
    const who = others.length > 0 ? `the server said ${names(others)} held the lock` : `the server no longer had ${s.client} as holder`;
    found.push(violation('stale-holder', [s.client, ...others], s.from, done.t, `${what(s)} at ${at(done.t)} while ${who}`));
  }
  return found;
}

function what(s: OpSpan): string {
  if (s.op === 'enter') return `${s.client} entered the critical section`;
  const token = tokenOf(s);
  const thing = s.op === 'write' ? `write${token}` : 'increment';
  return `${s.client}'s ${thing} was accepted`;
}

function tokenOf(s: OpSpan): string {
  const token = s.done?.token ?? s.invoke?.token;
  return token === undefined ? '' : ` (token ${token})`;
}

// Who the server listed at time t: the latest read of each node, known clients only.
function serverHolders(history: History, intervals: Intervals, t: number): string[] {
  const latest = new Map<string, ServerEvent>();
  for (const e of history.events) if (e.kind === 'server' && e.t <= t) latest.set(e.node, e);
  const holders = [...latest.values()].flatMap((e) => e.holders);
  return intervals.clients.filter((c) => holders.includes(c));
}

/**
 * Each acquire ok starts a new epoch, numbered in completion order; a client's writes carry its
 * latest epoch. An accepted write whose epoch is lower than that of an earlier accepted write came
 * from an older holder. Writes by a client that never acquired have no epoch and are not compared
 * (that client was never a holder; stale-holder covers it when the server read says so).
 */
export function checkStaleWrite(intervals: Intervals, ops: readonly OpEvent[]): Violation[] {
  const writes = new Map(intervals.spans.filter((s) => s.op === 'write').map((s) => [s.id, s]));
  const epochOf = new Map<string, number>();
  let epochs = 0;
  let newest: { epoch: number; span: OpSpan; t: number } | undefined;
  const found: Violation[] = [];
  for (const e of ops) {
    const crash = intervals.crashes.get(e.client);
    if (crash !== undefined && e.t > crash) continue;
    if (e.op === 'acquire' && e.phase === 'ok') epochOf.set(e.client, ++epochs);
    if (e.op !== 'write' || e.phase !== 'ok' || e.accepted === false) continue;
    const span = writes.get(e.id);
    const epoch = epochOf.get(e.client);
    if (!span || epoch === undefined) continue;
    if (newest && epoch < newest.epoch) {
      const other = newest.span;
      const message = `${e.client}'s write${tokenOf(span)} overwrote ${other.client}'s newer write${tokenOf(other)} at ${at(e.t)}`;
      found.push(violation('stale-write', [e.client, other.client], newest.t, e.t, message));
    } else {
      newest = { epoch, span, t: e.t };
    }
  }
  return found;
}
