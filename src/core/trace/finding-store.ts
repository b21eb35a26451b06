// The checker's record of the findings it issued, by slot: a part that may lengthen a finding
// later (a stale owner's next act, a stuck lock's wait) keeps its slot, and an update is issued
// only when the window grew. `trace` keeps every finding (its views and summary show them); the
// exporter counts them as they are issued and keeps none, only the windows of the newest.

import type { Finding } from './checker.js';

/** Findings whose window is remembered when they are not kept: far more than are open at once. */
export const OPEN_WINDOWS = 10_000;

export class FindingStore {
  /** Every finding so far with its latest window (empty when not kept). */
  readonly list: Finding[] = [];
  /** When not kept: the latest `to` of the newest OPEN_WINDOWS findings, by slot, oldest first. */
  private readonly windows = new Map<number, number>();
  private slots = 0;

  constructor(private readonly keep: boolean) {}

  /** Records a new finding; returns its slot. */
  add(finding: Finding): number {
    const slot = this.slots++;
    this.remember(slot, finding);
    return slot;
  }

  /**
   * Replaces the finding at `slot` when `finding`'s window ends later; false when it does not.
   * One forgotten (not kept, older than OPEN_WINDOWS others) counts as lengthened.
   */
  lengthen(slot: number, finding: Finding): boolean {
    const before = this.keep ? this.list[slot]?.to : this.windows.get(slot);
    if (finding.to <= (before ?? Number.NEGATIVE_INFINITY)) return false;
    this.remember(slot, finding);
    return true;
  }

  private remember(slot: number, finding: Finding): void {
    if (this.keep) return void (this.list[slot] = finding);
    this.windows.delete(slot); // set again as the newest
    this.windows.set(slot, finding.to);
    if (this.windows.size > OPEN_WINDOWS) this.windows.delete(this.windows.keys().next().value!);
  }
}
