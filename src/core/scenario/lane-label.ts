// The name at the left of a lane, in the text chart and the ink swimlane alike: one width for all
// lanes of a chart and one rule for a name too long for it. Lanes are told apart by their ends
// (`redlock-cli:worker-1` / `-2`, `:37066` / `:37068`, `orders:17` / `:18`), so a long name keeps
// its end: cutting some names to their start and others to their end made labels unreadable.

import { padDisplay, truncateToWidth, displayWidth } from '../text-layout.js';

/** Columns a label takes (the space after it included): the longest name, between 3 and 8. */
export function laneLabelWidth(names: readonly string[]): number {
  return Math.min(8, Math.max(3, ...names.map(displayWidth))) + 1;
}

/** `name` fitted to exactly `columns` columns, keeping its end. */
export function laneName(name: string, columns: number): string {
  return padDisplay(truncateToWidth(name, columns, 'start'), columns);
}

/** A chart row's label: `name` in `width - 1` columns, then a space. */
export function laneLabel(name: string, width: number): string {
  return `${laneName(name, width - 1)} `;
}
