import type { LockWarning, Severity } from '../lock-view.js';

/** A reentrant hold count above this suggests lock() in a loop without unlock(): a leak. */
export const HUGE_HOLD_COUNT = 100;

/** Per code, at most this many warnings are listed; the rest are summed up in one more line. */
export const WARNINGS_PER_CODE = 5;

export const warn = (code: string, severity: Severity, message: string): LockWarning => ({ code, severity, message });

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * Errors first, then warnings, then notes; a dead 1,000-waiter queue gives five lines and a
 * count, not a thousand (the per-entry facts are still in the view's queue / readers / permits).
 */
export function finishWarnings(warnings: readonly LockWarning[]): LockWarning[] {
  const seen = new Map<string, number>();
  const kept: LockWarning[] = [];
  for (const w of warnings) {
    const n = (seen.get(w.code) ?? 0) + 1;
    seen.set(w.code, n);
    if (n <= WARNINGS_PER_CODE) kept.push(w);
  }
  for (const [code, n] of seen) {
    if (n <= WARNINGS_PER_CODE) continue;
    const first = warnings.find((w) => w.code === code)!;
    kept.push(warn(code, first.severity, `... and ${n - WARNINGS_PER_CODE} more like this`));
  }
  return kept.sort((a, b) => RANK[a.severity] - RANK[b.severity]);
}
