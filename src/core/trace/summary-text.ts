// The summary `trace` prints at the end: a table with a row per lock, then every finding (or one
// line saying none was unsafe). Lock names pass the escaping boundary.

import { escapeControls, printable } from '../decode/escape.js';
import { formatDuration } from '../duration.js';
import { formatColumns } from '../text-layout.js';
import { blindLine, type BlindPeriod } from './blind.js';
import type { Finding } from './checker.js';
import { findingLine, findingTally } from './format.js';
import type { LockSummary } from './summary.js';

const pair = (p: { p50: number; p99: number } | undefined) => (p ? `${formatDuration(p.p50)} / ${formatDuration(p.p99)}` : '-');

/** The summary table's cells, a row per lock (names escaped). */
export function summaryRows(locks: readonly LockSummary[]): { head: string[]; rows: string[][] } {
  const head = ['lock', 'acquired', 'refused', 'expired', 'hold p50 / p99', 'wait p50 / p99', 'clients', 'findings'];
  const rows = locks.map((l) => [printable(l.lock), String(l.acquisitions), String(l.refusals), String(l.expiries), pair(l.holdMs), pair(l.waitMs), String(l.clients), String(l.findings)]);
  return { head, rows };
}

/** Rows cut to `maxLocks` (the busiest first), then the findings, then the periods the trace was blind. */
export function summaryLines(locks: readonly LockSummary[], findings: readonly Finding[], width?: number, maxLocks = 20, blind: readonly BlindPeriod[] = []): string[] {
  const { head, rows } = summaryRows(locks.slice(0, maxLocks));
  // The lock name gives way first when a terminal is narrow (cut in the middle: both ends tell locks apart).
  const out = locks.length === 0 ? ['no lock operation seen'] : formatColumns([head, ...rows], { width, columns: [{ min: 12, cut: 'middle' }] });
  if (locks.length > maxLocks) out.push(`... ${locks.length - maxLocks} more locks (--json lists them all)`);
  out.push('');
  if (findings.length === 0 && blind.length === 0) out.push('findings: none: nothing unsafe seen');
  // Blind for a while: what was not seen cannot be called safe.
  else if (findings.length === 0) out.push(`findings: none seen, but the trace was blind ${blind.length === 1 ? 'once' : `${blind.length} times`}: nothing unsafe seen outside ${blind.length === 1 ? 'that period' : 'those periods'}`);
  else out.push(`findings: ${findingTally(findings)}${blind.length > 0 ? `; the trace was also blind ${blind.length === 1 ? 'once' : `${blind.length} times`}` : ''}`);
  for (const f of findings) out.push(`  ${findingLine(f)}`);
  for (const p of blind) out.push(`  ! ${escapeControls(blindLine(p))}`);
  return out;
}
