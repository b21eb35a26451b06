// The table `scenario run --all` ends with: one row per scenario, its variants' verdicts and how
// long it took. Plain text, so the ink view and a pipe print the same table.

import { formatDuration } from '../duration.js';
import type { Outcome } from './timing.js';

export interface SummaryRow {
  readonly name: string;
  /** Each variant that ran and its outcome; undefined if the scenario never ran. */
  readonly variants?: readonly { readonly variant: string; readonly outcome: Outcome }[];
  readonly durationMs?: number;
  /** The scenario could not run (sandbox failed to start, bad file). */
  readonly error?: string;
}

/** Every variant matched on time and nothing failed. */
export function rowPassed(row: SummaryRow): boolean {
  return row.error === undefined && row.variants !== undefined && row.variants.every((v) => v.outcome === 'as-expected');
}

/** Only inconclusive variants kept the row from passing (no wrong verdict, no error). */
export function rowInconclusive(row: SummaryRow): boolean {
  return !rowPassed(row) && row.error === undefined && (row.variants?.every((v) => v.outcome !== 'not-as-expected') ?? false);
}

const MARK: Readonly<Record<Outcome, string>> = { 'as-expected': '✓', 'not-as-expected': '✗', inconclusive: '?' };

function verdictText(r: SummaryRow): string {
  if (r.error !== undefined) return `error: ${r.error}`;
  if (r.variants === undefined) return 'not run';
  return r.variants.map((v) => `${v.variant} ${MARK[v.outcome]}`).join('  ');
}

const cut = (text: string, width: number): string => (text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`);

/** Header, one line per scenario and a total line, none wider than `width`. */
export function summaryTable(rows: readonly SummaryRow[], width = 80): string[] {
  const times = rows.map((r) => (r.durationMs !== undefined ? formatDuration(r.durationMs) : '-'));
  const timeWidth = Math.max(4, ...times.map((t) => t.length));
  // A narrow terminal keeps the column, not its long header.
  const countLabel = width >= 60 ? 'VARIANTS' : 'N';
  const countWidth = countLabel.length;
  const verdicts = rows.map(verdictText);
  // Verdicts keep their natural width; an error message gets what the names leave at full length
  // (it is cut, not made room for). The name takes what is left, at least 8 columns, cut at its end.
  const room = width - countWidth - timeWidth - 6;
  const longestName = Math.max(8, ...rows.map((r) => r.name.length));
  const errors = Math.min(room - longestName, Math.max(0, ...rows.map((r, i) => (r.error !== undefined ? verdicts[i]!.length : 0))));
  const natural = Math.max(8, errors, ...rows.map((r, i) => (r.error === undefined ? verdicts[i]!.length : 0)));
  const nameWidth = Math.max(8, Math.min(longestName, room - natural));
  const verdictWidth = Math.max(6, Math.min(natural, room - nameWidth));
  const line = (name: string, count: string, verdict: string, time: string) =>
    `${cut(name, nameWidth).padEnd(nameWidth)}  ${count.padStart(countWidth)}  ${cut(verdict, verdictWidth).padEnd(verdictWidth)}  ${time.padStart(timeWidth)}`.trimEnd();
  const body = rows.map((r, i) => line(r.name, r.variants ? String(r.variants.length) : '-', verdicts[i]!, times[i]!));
  const late = rows.filter(rowInconclusive);
  const failed = rows.filter((r) => !rowPassed(r) && !rowInconclusive(r));
  const total = rows.reduce((sum, r) => sum + (r.durationMs ?? 0), 0);
  const parts = [
    ...(failed.length > 0 ? [`${failed.length} not as expected: ${failed.map((r) => r.name).join(', ')}`] : []),
    ...(late.length > 0 ? [`${late.length} inconclusive (machine too busy): ${late.map((r) => r.name).join(', ')}`] : []),
  ];
  const verdict = parts.length === 0 ? 'all as expected' : parts.join('; ');
  return [
    line('SCENARIO', countLabel, 'VERDICTS', 'TIME'),
    ...body,
    cut(`${rows.length} scenario${rows.length === 1 ? '' : 's'} in ${formatDuration(total)}, ${verdict}`, width),
  ];
}
