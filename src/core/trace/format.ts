// Trace events and findings in words, one line each: what a pipe, a log and the live view's
// event pane print. Names that came from Redis pass the escaping boundary here.

import { escapeControls, printable } from '../decode/escape.js';
import { formatDuration } from '../duration.js';
import type { Finding } from './checker.js';
import { clientLabel, shortOwner, type TraceEvent } from './events.js';

const DAY_MS = 86_400_000;
const two = (n: number) => (n < 10 ? `0${n}` : String(n));
/** The `hh:mm:ss.` of the last second formatted: a log's events come many to a second. */
let lastSecond = Number.NaN;
let lastPrefix = '';

/**
 * Server time as `hh:mm:ss.mmm` UTC (the server's clock, not this machine's). Computed from the
 * time of day, not through a Date: every event line of a replay of millions of lines calls it.
 */
export function traceTime(t: number): string {
  const ms = (((Math.round(t) % DAY_MS) + DAY_MS) % DAY_MS) | 0;
  const second = (ms / 1000) | 0;
  if (second !== lastSecond) {
    lastSecond = second;
    lastPrefix = `${two((second / 3600) | 0)}:${two(((second / 60) | 0) % 60)}:${two(second % 60)}.`;
  }
  const milli = ms % 1000;
  return lastPrefix + (milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : String(milli));
}

const VERB: Readonly<Record<TraceEvent['kind'], string>> = {
  attempt: 'attempt',
  acquired: 'acquired',
  refused: 'refused',
  renewed: 'renewed',
  'renew-refused': 'renew REFUSED',
  released: 'released',
  'release-refused': 'release REFUSED',
  expired: 'EXPIRED',
  'force-unlocked': 'FORCE-UNLOCKED',
  deleted: 'DELETED',
  'queue-join': 'queued',
  'queue-leave': 'left queue',
  'reader-join': 'reader in',
  'reader-leave': 'reader out',
  failover: 'FAILOVER',
  'lost-in-failover': 'LOST IN FAILOVER',
  raw: 'raw',
  configured: 'configured',
  blind: 'BLIND',
  unblind: 'seeing again',
  'clock-step': 'CLOCK STEP',
};

/** The parts of an event after its verb: owner, client, lease, holders, command. */
export function eventDetails(e: TraceEvent): string {
  const parts: string[] = [];
  if (e.owner !== undefined) parts.push(`by ${printable(shortOwner(e.owner))}`);
  if (e.client?.addr || e.client?.name) parts.push(`[${printable(clientLabel(e.client))}]`);
  if (e.leaseMs !== undefined && e.kind !== 'expired') parts.push(`lease ${formatDuration(e.leaseMs)}`);
  if (e.count !== undefined && (e.count > 1 || (e.kind === 'released' && e.count > 0))) parts.push(`count ${e.count}`);
  if (e.holders && e.holders.length > 0 && e.kind !== 'expired') parts.push(`held by ${e.holders.map((h) => printable(shortOwner(h))).join(', ')}`);
  if (e.data) parts.push('the key holds application data');
  if (e.overwrite) parts.push('without NX');
  if (e.command) parts.push(e.command.map((a) => printable(a)).join(' ').slice(0, 120));
  if (e.detail) parts.push(`(${printable(e.detail)})`);
  return parts.join(' ');
}

/** `12:00:01.234  orders  acquired  by 6f1c2a3b…:1 [worker-1 (127.0.0.1:5555)] lease 30.0 s` */
export function eventLine(e: TraceEvent): string {
  return `${traceTime(e.t)}  ${eventText(e)}`;
}

/** An event's line without its time: `orders  acquired  by 6f1c2a3b…:1 [worker-1] lease 30.0 s`. */
export function eventText(e: TraceEvent): string {
  const node = e.node ? `  @${e.node}` : '';
  return `${printable(e.lock)}  ${VERB[e.kind]}  ${eventDetails(e)}${node}`.trimEnd();
}

/**
 * `! overlap orders 12:00:01.300-12:00:02.100: ...`; `overlap (updated)` when issued again with a
 * longer window; `deadlock (liveness, no-ttl)` for a liveness finding, with its why.
 */
export function findingLine(f: Finding): string {
  const window = f.to > f.from ? `${traceTime(f.from)}-${traceTime(f.to)}` : traceTime(f.from);
  const liveness = f.liveness ? ` (liveness${f.why ? `, ${f.why}` : ''})` : '';
  return `${f.unsafe ? '!' : '~'} ${f.kind}${liveness}${f.update ? ' (updated)' : ''} ${printable(f.lock)} ${window}: ${escapeControls(f.message)}`;
}

/** `2 unsafe, 1 warnings`, or `2 unsafe, 1 liveness, 1 warnings` when a lock was seen stuck. */
export function findingTally(findings: readonly Finding[]): string {
  const unsafe = findings.filter((f) => f.unsafe).length;
  const liveness = findings.filter((f) => f.liveness).length;
  return `${unsafe} unsafe, ${liveness > 0 ? `${liveness} liveness, ` : ''}${findings.length - unsafe - liveness} warnings`;
}
