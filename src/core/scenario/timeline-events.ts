// History events in words, for the text timeline's event list and the live view's log: one line
// per event, `0.41 s  B  acquire ok (lease 2.00 s)`.

import type { EndEvent, FaultEvent, History, HistoryEvent, LockLostEvent, OpEvent, RenewedEvent, ServerEvent } from './history.js';

/** How a line is coloured on a terminal (the text timeline ignores it). */
export type EventTone = 'op' | 'failed' | 'fault' | 'server' | 'note' | 'end';

export interface EventLine {
  readonly t: number;
  /** Client, node, `scenario` (notes) or `end`. */
  readonly lane: string;
  readonly text: string;
  readonly tone: EventTone;
}

/**
 * Every event as a line, in history order. An invoke immediately followed by its own completion is
 * left out (the completion says it all); one that waits (an acquire behind another holder) stays,
 * so the list shows when the wait began.
 */
export function eventLines(history: History): EventLine[] {
  return shownEvents(history).map(eventLine);
}

/** The events worth a line or a glyph, in history order (eventLines' rule). */
export function shownEvents(history: History): HistoryEvent[] {
  const events = history.events;
  return events.filter((e, i) => {
    const next = events[i + 1];
    return !((e.kind === 'op' || e.kind === 'fault') && e.phase === 'invoke' && next?.kind === e.kind && next.id === e.id && next.phase !== 'invoke');
  });
}

/** One event as a line. */
export function eventLine(e: HistoryEvent): EventLine {
  switch (e.kind) {
    case 'op':
      return { t: e.t, lane: e.client, text: opText(e), tone: e.phase === 'fail' || e.accepted === false || e.held === false ? 'failed' : 'op' };
    case 'fault':
      return { t: e.t, lane: e.node, text: faultText(e), tone: e.phase === 'fail' ? 'failed' : 'fault' };
    case 'server':
      return { t: e.t, lane: e.node, text: serverText(e), tone: 'server' };
    case 'note':
      return { t: e.t, lane: e.lane, text: e.text, tone: 'note' };
    case 'lock-lost':
      return { t: e.t, lane: e.client, text: lockLostText(e), tone: 'failed' };
    case 'renewed':
      return { t: e.t, lane: e.client, text: renewedText(e), tone: 'op' };
    case 'end':
      return { t: e.t, lane: 'end', text: endText(e), tone: 'end' };
  }
}

/** `lock lost: the renewal was refused`. */
export function lockLostText(e: LockLostEvent): string {
  return `lock lost: ${e.reason}`;
}

/** `watchdog renewed (3)`. */
export function renewedText(e: RenewedEvent): string {
  return `watchdog renewed (${e.renewals})`;
}

/** One op event in words, without time or lane: `acquire ok (lease 2.00 s, token 34)`. */
export function opText(e: OpEvent): string {
  const extras: string[] = [];
  if (e.leaseMs !== undefined) extras.push(`lease ${seconds(e.leaseMs)}`);
  if (e.token !== undefined) extras.push(`token ${e.token}`);
  if (e.op === 'incr' && e.read !== undefined && e.value !== undefined) extras.push(`read ${e.read}, wrote ${e.value}`);
  else if (e.value !== undefined) extras.push(`value ${e.value}`);
  if (e.accepted !== undefined) extras.push(e.accepted ? 'accepted' : 'REJECTED');
  if (e.held === false) extras.push('server says not held');
  if (e.detail !== undefined) extras.push(e.detail);
  const head = opHead(e);
  return extras.length > 0 ? `${head} (${extras.join(', ')})` : head;
}

function opHead(e: OpEvent): string {
  if (e.op === 'crash') return 'crashed';
  if (e.op === 'pause') return e.phase === 'invoke' ? 'paused' : e.phase === 'ok' ? 'resumed' : 'pause FAILED';
  return `${e.op} ${e.phase === 'invoke' ? '…' : e.phase === 'ok' ? 'ok' : 'FAILED'}`;
}

/** One fault event in words: `kill`, `restart ok (amnesia)`, `partition FAILED (...)`. */
export function faultText(e: FaultEvent): string {
  const head = e.phase === 'invoke' ? e.verb : `${e.verb} ${e.phase === 'ok' ? 'ok' : 'FAILED'}`;
  return e.detail !== undefined ? `${head} (${e.detail})` : head;
}

function serverText(e: ServerEvent): string {
  if (e.holders.length === 0) return 'server: free';
  const ttl = e.ttlMs === -1 ? 'no TTL' : e.ttlMs >= 0 ? `ttl ${seconds(e.ttlMs)}` : 'gone';
  return `server: held by ${e.holders.join(', ')} (${ttl})`;
}

function endText(e: EndEvent): string {
  const r = e.register;
  const register = r.value === undefined ? 'register empty' : `register ${r.value}${r.writer !== undefined ? ` by ${r.writer}` : ''}${r.token !== undefined ? ` (token ${r.token})` : ''}`;
  return `counter ${e.counter}, ${register}`;
}

/** Seconds with two decimals under 10 s (the timeline's resolution), one above: `0.41 s`, `12.5 s`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(Math.abs(ms) < 10_000 ? 2 : 1)} s`;
}
