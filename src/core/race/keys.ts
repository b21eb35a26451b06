// The keys a race writes for each lock name: the lock itself and the companions its protocol keeps
// beside it (a fenced lock's token counter, a fair lock's queue and deadlines). On a server that is
// not a redlock-cli sandbox a race takes only names for which none of these exist, so it never
// writes over anything it did not create.

import { fairQueueKey, fairTimeoutKey, fencedTokenKey } from '../names.js';
import type { RaceKind } from './plan.js';

const COMPANIONS: Partial<Record<RaceKind, readonly ((name: string) => string)[]>> = {
  fenced: [fencedTokenKey],
  fair: [fairQueueKey, fairTimeoutKey],
};

/** Every key a race of this kind on `name` may write. */
export function keysRaceWrites(kind: RaceKind, name: string): string[] {
  return [name, ...(COMPANIONS[kind] ?? []).map((companion) => companion(name))];
}
