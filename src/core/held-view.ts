import type { LockView } from '../core/lock-view.js';

/** Does this view show the owner holding the key (as holder, writer or reader)? Pure: the panel uses it too. */
export function viewShows(view: LockView, owner: string): boolean {
  return view.holders.some((h) => h.owner === owner || h.owner === `${owner}:write`) || (view.readers ?? []).some((r) => r.owner === owner);
}
