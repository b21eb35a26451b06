// The summary `trace` prints at the end: a table with a row per lock, then every finding (or one
// line saying none was unsafe). Lock names pass the escaping boundary.

import { printable } from '../decode/escape.js';
import { formatDuration } from '../duration.js';
import { formatColumns } from '../text-layout.js';
import type { Finding } from './checker.js';
import { findingLine } from './format.js';
import type { LockSummary } from './summary.js';

const pair = (p: { p50: number; p99: number } | undefined) => (p ? `${formatDuration(p.p50)} / ${formatDuration(p.p99)}` : '-');

/** Rows cut to `maxLocks` (the busiest first), then the findings. */
export function summaryLines(locks: readonly LockSummary[], findings: readonly Finding[], width?: number, maxLocks = 20): string[] {
  const head = ['lock', 'acquired', 'refused', 'expired', 'hold p50 / p99', 'wait p50 / p99', 'clients', 'findings'];
  const rows = locks.slice(0, maxLocks).map((l) => [printable(l.lock), String(l.acquisitions), String(l.refusals), String(l.expiries), pair(l.holdMs), pair(l.waitMs), String(l.clients), String(l.findings)]);
  // The lock name gives way first when a terminal is narrow (cut in the middle: both ends tell locks apart).
  const out = locks.length === 0 ? ['no lock operation seen'] : formatColumns([head, ...rows], { width, columns: [{ min: 12, cut: 'middle' }] });
  if (locks.length > maxLocks) out.push(`... ${locks.length - maxLocks} more locks (--json lists them all)`);
  const unsafe = findings.filter((f) => f.unsafe).length;
  out.push('');
  if (findings.length === 0) out.push('findings: none: nothing unsafe seen');
  else {
    out.push(`findings: ${unsafe} unsafe, ${findings.length - unsafe} warnings`);
    for (const f of findings) out.push(`  ${findingLine(f)}`);
  }
  return out;
}
