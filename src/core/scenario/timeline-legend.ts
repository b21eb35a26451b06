// What every glyph of a lane chart means, for both renderers: the plain text chart (ASCII) and the
// ink swimlane (block characters). Each gives its own glyph per state, fault and mark; the legend
// is built from those same tables, so no glyph a chart can draw goes unexplained.

import type { ClientState, MarkKind, NodeFault } from './timeline.js';

/** The glyphs one renderer draws: per client state, per node fault, per mark (a mark without one is not drawn). */
export interface LaneGlyphs {
  readonly state: Readonly<Record<ClientState, string>>;
  readonly fault: Readonly<Record<NodeFault, string>>;
  readonly mark: Readonly<Partial<Record<MarkKind, string>>>;
}

/** Glyphs every renderer shares: a node held by several clients, by one it cannot name, and a violation window. */
export const SEVERAL_HOLDERS = '&';
export const UNKNOWN_HOLDER = '?';
export const VIOLATION = '!';

const STATE_TEXT: Readonly<Record<ClientState, string>> = {
  idle: 'idle',
  waiting: 'waiting',
  holding: 'holding',
  'in-section': 'in section',
  paused: 'paused',
  crashed: 'crashed',
};
const FAULT_TEXT: Readonly<Record<NodeFault, string>> = { killed: 'killed', paused: 'paused', partitioned: 'partitioned', blind: 'trace blind' };
const MARK_TEXT: Readonly<Record<MarkKind, string>> = {
  'acquire-fail': 'acquire failed',
  'release-ok': 'released',
  'release-fail': 'release failed',
  'renew-ok': 'renewed',
  'renew-fail': 'renewal failed',
  'write-ok': 'write accepted',
  'write-rejected': 'write rejected',
  incr: 'incr',
  lost: 'lock lost',
  fault: 'fault',
  'fault-fail': 'fault failed',
  note: 'note',
};

/** Every glyph the tables can draw with what it means, in drawing order; meanings sharing a glyph are joined by `/`. */
export function legendEntries(glyphs: LaneGlyphs): (readonly [string, string])[] {
  const texts = new Map<string, string[]>();
  const add = (glyph: string | undefined, text: string): void => {
    if (glyph === undefined || glyph.trim() === '') return; // blank cells need no key
    const list = texts.get(glyph) ?? [];
    if (!list.includes(text)) list.push(text);
    texts.set(glyph, list);
  };
  for (const [state, glyph] of Object.entries(glyphs.state)) add(glyph, STATE_TEXT[state as ClientState]);
  for (const [fault, glyph] of Object.entries(glyphs.fault)) add(glyph, FAULT_TEXT[fault as NodeFault]);
  add(SEVERAL_HOLDERS, 'several holders');
  add(UNKNOWN_HOLDER, 'unknown holder');
  for (const [mark, glyph] of Object.entries(glyphs.mark)) add(glyph, MARK_TEXT[mark as MarkKind]);
  add(VIOLATION, 'violation');
  return [...texts].map(([glyph, list]) => [glyph, list.join('/')] as const);
}

/**
 * The legend items of one chart: the glyphs it drew (`used`), then each client's letter on the
 * node lanes where it is not the name itself.
 */
export function legendItems(glyphs: LaneGlyphs, used: ReadonlySet<string>, codes: ReadonlyMap<string, string>): string[] {
  const drawn = legendEntries(glyphs).filter(([glyph]) => used.has(glyph)).map(([glyph, text]) => `${glyph} ${text}`);
  const named = [...codes].filter(([name, code]) => name !== code && used.has(code)).map(([name, code]) => `${code} ${name}`);
  return [...drawn, ...named];
}
