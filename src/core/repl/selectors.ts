// What the REPL session's state says, for the screen, the panel and the exit dialogue: which
// locks the clients hold here and elsewhere, who waits, and which keys the panel reads and how.

import { parseInspectKind } from '../decode/index.js';
import type { InspectKind } from '../lock-view.js';
import { jobLocks } from './hold-job.js';
import { stillHeld } from './panel.js';
import type { HeldLock, Waiting } from './screen-parts.js';
import type { ReplState } from './state.js';

/** What the clients hold on the current target as far as Redis last said, and who waits. */
export function locksHere(state: ReplState): { held: HeldLock[]; waiting: Waiting[] } {
  const fromJobs = jobLocks(state.jobs);
  const here = (l: HeldLock): boolean => l.target === undefined || state.target.names.includes(l.target);
  const label = state.target.target.label;
  const acquired = state.acquired.filter(here).map((l) => ({ ...l, where: label }));
  const held = [...stillHeld(acquired, state.panel.views, state.panel.readAt), ...fromJobs.held.filter(here)];
  const waitKey = state.running?.waitKey;
  const waiting =
    waitKey !== undefined
      ? [...fromJobs.waiting, { client: state.running!.view.client, key: waitKey, where: label }]
      : fromJobs.waiting;
  return { held, waiting };
}

/** What `acquire` or a hold left on other targets of this session: named by where they live, never read from this one. */
export function heldElsewhere(state: ReplState): HeldLock[] {
  return [...state.acquired, ...jobLocks(state.jobs).held]
    .filter((l) => l.target !== undefined && !state.target.names.includes(l.target))
    .map((l) => ({ ...l, where: l.where ?? state.knownTargets[l.target!]?.label ?? l.target }));
}

/** How the panel reads a key: as asked (`watch --kind`, a stepped scenario's lock), else as our clients hold it. */
export function kindOf(state: ReplState, key: string): InspectKind | undefined {
  const hinted = state.kindHints[key];
  if (hinted) return hinted;
  const held = locksHere(state).held.find((h) => h.key === key);
  return held ? parseInspectKind(held.kind) : undefined;
}

/** Keys the panel reads each tick: watched ones first, then held and waited-for ones. */
export function panelKeys(state: ReplState): string[] {
  const { held, waiting } = locksHere(state);
  return [...new Set([...state.panel.watched, ...held.map((h) => h.key), ...waiting.map((w) => w.key)])];
}
