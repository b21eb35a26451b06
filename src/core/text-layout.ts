import sliceAnsi from 'slice-ansi';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';

// The one place that measures and lays out terminal text: tables, wrapped prose, help. Widths are
// display columns (string-width: a CJK character or an emoji takes two, colour codes none), so a
// key like 注文 lines up with ascii ones; wrapping breaks only between words (wrap-ansi), and a
// word longer than a whole line is the one thing ever cut. Pure: the caller says how wide.

/** The width to lay out for when the terminal's is unknown (a pipe, a test). */
export const FALLBACK_WIDTH = 80;

/** Columns `text` takes on a terminal. */
export const displayWidth = (text: string): number => stringWidth(text);

/** The terminal's width, or FALLBACK_WIDTH when there is none. */
export function widthOf(stream: { readonly isTTY?: boolean | undefined; readonly columns?: number | undefined }): number {
  return stream.isTTY === true && stream.columns !== undefined && stream.columns > 0 ? stream.columns : FALLBACK_WIDTH;
}

/** `text` padded with spaces to `width` display columns. */
export function padDisplay(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

// What the output boundary writes for one unsafe character (`\x1b`, `\u202e`, `\n`) and what
// quoting escapes (`\\`, `\"`): a cut inside one would show `\x1…`, a byte that never was.
const ESCAPED_CHAR = /\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[nrt\\"])/g;
const SGR = /\u001b\[[0-9;]*m/g;
const SGR_AT = /^\u001b\[[0-9;]*m/;
const LEADING_SPACE = /^((?:\u001b\[[0-9;]*m)*)\s+/;

/** The column ranges [start, end) that escaped characters take in `text` (colour codes take none). */
function escapeSpans(text: string): [number, number][] {
  const visible = text.replace(SGR, '');
  return [...visible.matchAll(ESCAPED_CHAR)].map((m) => {
    const start = displayWidth(visible.slice(0, m.index));
    return [start, start + m[0].length];
  });
}

/**
 * Shortens `text` to `width` columns with an ellipsis: keys lose their middle, other cells their
 * end, names told apart by their end (lane labels) their start. A cut never falls inside an
 * escaped character: it moves to the escape's edge, so the result may be a column or three
 * narrower than `width`.
 */
export function truncateToWidth(text: string, width: number, cut: 'middle' | 'end' | 'start' = 'end'): string {
  const total = displayWidth(text);
  if (total <= width) return text;
  if (width < 1) return '';
  const spans = text.includes('\\') ? escapeSpans(text) : [];
  const inside = (column: number) => spans.find(([start, end]) => start < column && column < end);
  const cutBefore = (column: number): number => inside(column)?.[0] ?? column;
  const cutAfter = (column: number): number => inside(column)?.[1] ?? column;
  if (cut === 'end') return `${sliceAnsi(text, 0, cutBefore(width - 1))}…`;
  if (cut === 'start') return `…${sliceAnsi(text, cutAfter(total - (width - 1)))}`;
  // The head keeps half the room; the tail gets what is left after the head and the ellipsis.
  const head = cutBefore(Math.floor(width / 2));
  return `${sliceAnsi(text, 0, head)}…${sliceAnsi(text, cutAfter(total - (width - 1 - head)))}`;
}

// A duration stays on one line (`0.50 s`, `4 m 51 s`, never `0.50` / `s` or `4 m` / `51 s`, as
// formatDuration writes them): its spaces are no-break spaces while wrapping, which wrap-ansi keeps.
const NBSP = '\u00a0';
const DURATION = /\d+(?:\.\d+)? (?:ms|s|m|h)\b(?: \d+ (?:s|m)\b)?/g;

export interface WrapOptions {
  /** Printed before the first line (a label); the text starts after it. */
  readonly head?: string;
  /** Printed before every further line; default: as many spaces as `head` is wide. */
  readonly indent?: string;
}

/** Breaks `text` into lines of at most `width` columns, between words only. */
export function wrapText(text: string, width: number, opts: WrapOptions = {}): string[] {
  const head = opts.head ?? '';
  const indent = opts.indent ?? ' '.repeat(displayWidth(head));
  // Line breaks become spaces (prose re-joined); runs of spaces inside a line are kept (aligned cells).
  const words = text.replace(/[ \t]*\n\s*/g, ' ').trim().replace(DURATION, (d) => d.replaceAll(' ', NBSP));
  // The first line has the room the head leaves, the others the room the indent leaves.
  const wrap = (t: string, room: number): string[] => (t.replace(SGR, '').trim() === '' ? [] : wrapAnsi(t, Math.max(1, room), { hard: true, trim: true }).split('\n'));
  const first = wrap(words, width - displayWidth(head))[0] ?? '';
  // wrap-ansi trims the line and closes its colour: find where it ended in `words` by its visible characters.
  const { index, codes } = afterVisible(words, first.replace(SGR, '').length, true);
  const rest = wrap(codes + words.slice(index).replace(LEADING_SPACE, '$1'), width - displayWidth(indent));
  return [`${head}${first}`, ...rest.map((line) => `${indent}${line}`)].map((line) => line.replaceAll(NBSP, ' ').trimEnd());
}

/** Items joined by two spaces after `head`, a new indented line before one would pass `width`; items never split. */
export function wrapItems(head: string, items: readonly string[], width: number): string[] {
  const indent = ' '.repeat(displayWidth(head));
  const lines: string[] = [];
  let line = head;
  let empty = true;
  for (const item of items) {
    if (!empty && displayWidth(line) + 2 + displayWidth(item) > width) {
      lines.push(line);
      [line, empty] = [indent, true];
    }
    line += (empty ? '' : '  ') + item;
    empty = false;
  }
  if (!empty) lines.push(line);
  return lines;
}

export interface ColumnLayout {
  /** This column gives up width (down to `min`) when the table is wider than the terminal. */
  readonly min?: number;
  /** How a shrunk cell is cut. */
  readonly cut?: 'middle' | 'end';
}

export interface TableOptions {
  /** The terminal's width; without it (a pipe) nothing is cut, so grep and awk see whole cells. */
  readonly width?: number | undefined;
  /** Per column, by index; columns without `min` keep their width. */
  readonly columns?: readonly (ColumnLayout | undefined)[] | undefined;
  /** The last column wraps under itself instead of running past `width` (prose cells). */
  readonly wrapLast?: boolean | undefined;
  /** This column moves to a line of its own under each row when the table is still too wide. */
  readonly moveBelow?: number | undefined;
}

const GAP = 2;

/**
 * Left-aligned columns two spaces apart, measured in display columns; the last is not padded.
 * With a width, shrinkable columns give up a column at a time, always the one furthest above its
 * minimum, so every shrunk column stays as readable as it can.
 */
export function formatColumns(rows: readonly (readonly string[])[], opts: TableOptions = {}): string[] {
  const { width, moveBelow } = opts;
  if (width !== undefined && moveBelow !== undefined && formatColumns(rows, { ...opts, moveBelow: undefined }).some((l) => displayWidth(l) > width)) {
    // Too wide even with shrinking: that column goes under its row, indented past the first column.
    const rest = rows.map((r) => r.filter((_, c) => c !== moveBelow));
    const lines = formatColumns(rest, { ...opts, moveBelow: undefined, columns: opts.columns?.filter((_, c) => c !== moveBelow) });
    const indent = ' '.repeat(Math.max(0, ...rows.map((r) => displayWidth(r[0] ?? ''))) + GAP);
    return lines.flatMap((line, i) => {
      const below = rows[i]?.[moveBelow] ?? '';
      return below === '' || below === '-' ? [line] : [line, ...wrapText(below, width, { head: indent })];
    });
  }
  const count = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: count }, (_, c) => Math.max(0, ...rows.map((r) => displayWidth(r[c] ?? ''))));
  const layout = (c: number): ColumnLayout | undefined => opts.columns?.[c];
  if (opts.width !== undefined) {
    let over = widths.reduce((sum, w) => sum + w, 0) + GAP * (count - 1) - opts.width;
    while (over > 0) {
      const slack = (c: number): number => widths[c]! - (layout(c)?.min ?? widths[c]!);
      const widest = widths.map((_, c) => c).reduce((best, c) => (slack(c) > slack(best) ? c : best), 0);
      if (slack(widest) <= 0) break;
      widths[widest]! -= 1;
      over -= 1;
    }
  }
  const lastStart = widths.slice(0, -1).reduce((sum, w) => sum + w + GAP, 0);
  return rows.flatMap((r) => {
    const cells = r.map((cell, c) => {
      const shrunk = layout(c)?.min !== undefined ? truncateToWidth(cell, widths[c]!, layout(c)?.cut) : cell;
      return c === r.length - 1 ? shrunk : padDisplay(shrunk, widths[c]! + GAP);
    });
    const last = cells.pop() ?? '';
    const lead = cells.join('');
    if (opts.wrapLast && opts.width !== undefined && r.length === count && displayWidth(lead + last) > opts.width) {
      // Under itself while there is room for a few words; otherwise on lines of its own below.
      if (opts.width - lastStart >= 20) return wrapText(last, opts.width, { head: lead, indent: ' '.repeat(lastStart) });
      const under = ' '.repeat(Math.min(displayWidth(r[0] ?? '') + GAP, Math.floor(opts.width / 3)));
      return [lead.trimEnd(), ...wrapText(last, opts.width, { head: under })];
    }
    return [(lead + last).trimEnd()];
  });
}

/**
 * Help prose re-flowed to `width`: lines of a paragraph are joined and wrapped again; an indented
 * line is an item whose own continuation lines (indented deeper) join it, wrapped under its text
 * column; example commands (`redlock-cli ...`, `$ ...`) are wrapped at spaces only where they do
 * not fit, with a shell line continuation so they still paste.
 */
export function reflow(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const indentOf = (line: string): number => line.length - line.trimStart().length;
  const isCommand = (line: string): boolean => /^\s+(\$ |redlock-cli\b|[A-Z_]+=\S* redlock-cli\b)/.test(line);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') {
      out.push('');
      continue;
    }
    const indent = indentOf(line);
    if (indent > 0 && isCommand(line)) {
      out.push(...wrapCommand(line, width));
      continue;
    }
    // An item keeps its own alignment (`  name   text`): only its text is re-wrapped.
    const textColumn = indent > 0 ? itemTextColumn(line) : undefined;
    const head = textColumn !== undefined ? line.slice(0, textColumn) : '';
    let joined = line.slice(head.length).trim();
    let hang: number | undefined;
    while (i + 1 < lines.length) {
      const next = lines[i + 1]!;
      if (next.trim() === '' || isCommand(next)) break;
      const nextIndent = indentOf(next);
      if (indent === 0 ? nextIndent !== 0 : nextIndent <= indent) break;
      hang ??= nextIndent;
      joined += ` ${next.trim()}`;
      i += 1;
    }
    if (indent === 0) out.push(...wrapText(joined, width));
    else {
      const under = Math.min(hang ?? textColumn ?? indent + 2, Math.floor(width / 2));
      out.push(...wrapText(joined, width, { head: head === '' ? ' '.repeat(indent) : head, indent: ' '.repeat(under) }));
    }
  }
  return out.join('\n');
}

/** Where an item's description starts (`  name   text`: after the first gap of two spaces or more). */
function itemTextColumn(line: string): number | undefined {
  const gap = /^(\s+\S+(?: \S+)*?\s{2,})\S/.exec(line);
  return gap && gap[1]!.length <= 40 ? gap[1]!.length : undefined;
}

function wrapCommand(line: string, width: number): string[] {
  const indent = ' '.repeat(line.length - line.trimStart().length);
  return wrapShellCommand(line.trim(), width, { head: indent, indent: `${indent}    ` });
}

// A shell word: quoted parts ('...', "...") stay whole, as breaking inside them changes the command.
const SHELL_WORD = /(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g;

/**
 * A command to copy and paste, on lines of at most `width`: broken only between shell words, each
 * broken line ending in ` \` so the shell reads it as one. A single word longer than a line
 * (a quoted script) stays whole: cutting it would change what runs.
 */
export function wrapShellCommand(command: string, width: number, opts: WrapOptions = {}): string[] {
  const head = opts.head ?? '';
  const indent = opts.indent ?? `${' '.repeat(displayWidth(head))}    `;
  if (displayWidth(head + command) <= width) return [head + command];
  const lines: string[] = [];
  let line = head;
  let empty = true;
  for (const word of command.match(SHELL_WORD) ?? []) {
    if (!empty && displayWidth(line) + 1 + displayWidth(word) + 2 > width) {
      lines.push(`${line} \\`);
      [line, empty] = [indent, true];
    }
    line += (empty ? '' : ' ') + word;
    empty = false;
  }
  return [...lines, line];
}

/** One line wider than `width`, wrapped under its item text (`  label     text`), else under its indent; colour codes take no room. */
export function wrapLine(line: string, width: number): string[] {
  if (displayWidth(line) <= width) return [line];
  const plain = line.replace(SGR, '');
  const column = itemTextColumn(plain) ?? plain.length - plain.trimStart().length;
  // The colour the head opened goes on with the text, so every wrapped line carries its own.
  const { index, codes } = afterVisible(line, column, false);
  return wrapText(codes + line.slice(index), width, { head: line.slice(0, index), indent: ' '.repeat(Math.min(column, Math.floor(width / 2))) });
}

/**
 * Where `count` visible characters of `text` end (colour codes not counted; with `skipSpace`,
 * leading white space neither), and the colour codes passed on the way, to carry over.
 */
function afterVisible(text: string, count: number, skipSpace: boolean): { index: number; codes: string } {
  let index = 0;
  let codes = '';
  let seen = 0;
  while (index < text.length && seen < count) {
    const code = SGR_AT.exec(text.slice(index));
    if (code) {
      codes += code[0];
      index += code[0].length;
    } else if (skipSpace && seen === 0 && /\s/.test(text[index]!)) index += 1;
    else [seen, index] = [seen + 1, index + 1];
  }
  return { index, codes };
}
