// The prompt's line: text, cursor and history browsing as a pure value. The ink prompt maps key
// presses to these functions; tests drive them directly.

export interface LineState {
  readonly text: string;
  /** 0..text.length, in UTF-16 units (what the terminal shows for what people type here). */
  readonly cursor: number;
  /** Index into history while browsing it with up/down; undefined when editing a new line. */
  readonly browsing?: number | undefined;
  /** The unfinished line put aside when browsing started, given back by down past the newest entry. */
  readonly draft?: string | undefined;
}

export const EMPTY_LINE: LineState = { text: '', cursor: 0 };

const at = (text: string, cursor: number): LineState => ({ text, cursor: Math.max(0, Math.min(cursor, text.length)) });

/** Inserts typed or pasted text at the cursor; editing leaves history browsing. */
export function insert(s: LineState, chunk: string): LineState {
  return at(s.text.slice(0, s.cursor) + chunk + s.text.slice(s.cursor), s.cursor + chunk.length);
}

export function backspace(s: LineState): LineState {
  if (s.cursor === 0) return s;
  return at(s.text.slice(0, s.cursor - 1) + s.text.slice(s.cursor), s.cursor - 1);
}

/** Deletes the character under the cursor (the Delete key). */
export function deleteForward(s: LineState): LineState {
  return at(s.text.slice(0, s.cursor) + s.text.slice(s.cursor + 1), s.cursor);
}

export const left = (s: LineState): LineState => ({ ...s, cursor: Math.max(0, s.cursor - 1) });
export const right = (s: LineState): LineState => ({ ...s, cursor: Math.min(s.text.length, s.cursor + 1) });
export const home = (s: LineState): LineState => ({ ...s, cursor: 0 });
export const end = (s: LineState): LineState => ({ ...s, cursor: s.text.length });

/** Ctrl-U: deletes from the start of the line to the cursor. */
export const killToStart = (s: LineState): LineState => at(s.text.slice(s.cursor), 0);

/** Ctrl-W: deletes the word before the cursor (and the spaces after it). */
export function killWord(s: LineState): LineState {
  const before = s.text.slice(0, s.cursor).replace(/\S+\s*$/, '');
  return at(before + s.text.slice(s.cursor), before.length);
}

/** Up: the previous history entry (history is oldest first), keeping the draft to come back to. */
export function historyUp(s: LineState, history: readonly string[]): LineState {
  if (history.length === 0) return s;
  const index = s.browsing === undefined ? history.length - 1 : Math.max(0, s.browsing - 1);
  const text = history[index]!;
  return { text, cursor: text.length, browsing: index, draft: s.browsing === undefined ? s.text : s.draft };
}

/** Down: the next entry, or back to the draft after the newest. */
export function historyDown(s: LineState, history: readonly string[]): LineState {
  if (s.browsing === undefined) return s;
  if (s.browsing >= history.length - 1) {
    const text = s.draft ?? '';
    return { text, cursor: text.length };
  }
  const index = s.browsing + 1;
  const text = history[index]!;
  return { text, cursor: text.length, browsing: index, draft: s.draft };
}

/** Appends a submitted line unless it is blank or repeats the last one; keeps the newest `max`. */
export function addToHistory(history: readonly string[], line: string, max = 500): string[] {
  const trimmed = line.trim();
  if (trimmed === '' || history[history.length - 1] === trimmed) return [...history];
  return [...history, trimmed].slice(-max);
}
