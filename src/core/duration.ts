import { UsageError } from './errors.js';

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
type Unit = keyof typeof UNIT_MS;

// Hand-written rather than the `ms` package: `ms` also accepts bare numbers and words
// ("100", "2 days"), and a bare number is exactly the ambiguity we want to refuse. Compound forms
// are Go's (`1m30s`, `1h15m`, as redsync and kubectl users type them) plus days: each unit at most
// once, largest first, so `30s1m` or `1m1m` stay errors instead of guesses.
const PART = '(\\d+(?:\\.\\d+)?)';
const DURATION = new RegExp(`^(?:${PART}d)?(?:${PART}h)?(?:${PART}m(?!s))?(?:${PART}s)?(?:${PART}ms)?$`);
const UNITS_IN_ORDER = Object.keys(UNIT_MS) as Unit[];

/**
 * The longest duration anything accepts: 24 days, just under the 2^31 - 1 ms a Node timer can
 * wait (a longer one fires at once), and far inside what PEXPIRE and Lua numbers hold exactly.
 */
export const MAX_DURATION_MS = 24 * 24 * 3_600_000;

export interface DurationBounds {
  /** Shortest accepted value in ms (default 1). */
  readonly minMs?: number;
}

/** Parses `500ms`, `5s`, `1.5s`, `2m`, `1h`, `2d` and compounds (`1m30s`, `1h15m`) into whole milliseconds; anything else throws UsageError. */
export function parseDuration(text: string, what = 'duration', bounds: DurationBounds = {}): number {
  const trimmed = text.trim();
  const match = trimmed === '' ? null : DURATION.exec(trimmed);
  if (!match) {
    throw new UsageError(`invalid ${what} "${text}": use a number with ms, s, m, h or d, or a compound (e.g. 500ms, 5s, 1m30s, 2h, 1d)`);
  }
  const ms = Math.round(UNITS_IN_ORDER.reduce((sum, unit, i) => sum + Number(match[i + 1] ?? 0) * UNIT_MS[unit], 0));
  return checkDurationBounds(ms, text, what, bounds);
}

/** Refuses a parsed duration outside 1 ms (or `minMs`) .. MAX_DURATION_MS, naming the bound. */
function checkDurationBounds(ms: number, text: string, what: string, { minMs = 1 }: DurationBounds = {}): number {
  if (ms <= 0) throw new UsageError(`invalid ${what} "${text}": must be greater than zero`);
  if (ms < minMs) throw new UsageError(`invalid ${what} "${text}": must be at least ${minMs}ms`);
  if (!(ms <= MAX_DURATION_MS)) throw new UsageError(`invalid ${what} "${text}": must be at most 576h (24 days)`);
  return ms;
}

/** A span in whole milliseconds, `1250 ms`: for findings and details that quote the exact figure (formatDuration rounds to units). */
export const formatMs = (n: number): string => `${Math.round(n)} ms`;

/** Short human form of a millisecond span: 850 ms, 4.2 s, 3 m 05 s, 2 h 10 m. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  const sign = ms < 0 ? '-' : '';
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`;
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(1)} s`;
  if (abs < 3_600_000) {
    const m = Math.floor(abs / 60_000);
    const s = Math.floor((abs % 60_000) / 1000);
    return `${sign}${m} m ${String(s).padStart(2, '0')} s`;
  }
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  return `${sign}${h} h ${String(m).padStart(2, '0')} m`;
}
