// The one parser for counts typed on a command line (--clients, --procs, --limit, --count, ...):
// decimal digits only, within a stated range. Number() alone took hex (0x10), exponents (1e20),
// signs (+5), blanks and fractions, and a count past the range ran out of memory or processes.

import { UsageError } from './errors.js';

/** The smallest and largest value a count flag takes. */
export interface CountBounds {
  readonly min: number;
  readonly max: number;
  /** Says why `max` is the limit ("this machine runs at most ..."), for the error line. */
  readonly why?: string;
}

/** A count within `bounds`, or a UsageError (exit 2) naming the flag, the text and the range. */
export function parseCount(text: string, flag: string, { min, max, why }: CountBounds): number {
  // Digits only; the length bound keeps Number() exact before the range check.
  const n = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(n) || n < min) throw new UsageError(`invalid ${flag} "${text}": use a whole number from ${min} to ${max}`);
  if (n > max) throw new UsageError(`invalid ${flag} "${text}": at most ${max}${why ? ` (${why})` : ''}`);
  return n;
}

/** parseCount for a flag that may be left out. */
export function optionalCount(text: string | undefined, flag: string, bounds: CountBounds): number | undefined {
  return text === undefined ? undefined : parseCount(text, flag, bounds);
}
