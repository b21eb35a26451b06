// What the live race view draws, one value per repaint.

import type { Violation } from '../scenario/verdict.js';
import type { RacePlan } from './plan.js';
import type { RaceSnapshot } from './tally.js';

export interface RaceLiveState {
  readonly plan: RacePlan;
  readonly target: string;
  readonly snapshot: RaceSnapshot;
  /** Found so far on the recent history (the final verdict reads all of it). */
  readonly violations: readonly (Violation & { readonly key: string })[];
}
