// The one output boundary: every string that came from Redis or the user (keys, holders, tokens,
// values, names) passes through here before it reaches a terminal, so a value like
// "ESC ] 0;pwned BEL" is shown as text and never retitles, clears or reorders the screen.
// Pure and tiny on purpose: colour (chalk) is applied AFTER this, to text it already made safe.

// C0 and C1 controls, DEL, the Unicode line/paragraph separators, and every format character
// (\p{Cf}): the bidirectional controls (a right-to-left override makes `evil` display as `live`)
// and the invisible ones (zero-width space and joiners, soft hyphen, BOM), which make two names
// that print alike differ. Regular expressions built from this class need the `u` flag.
export const UNSAFE_CLASS = '\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\p{Cf}';
const UNSAFE = new RegExp(`[${UNSAFE_CLASS}]`, 'gu');

/** `\n`, `\t`, `\xNN` (redis-cli's form), `\uNNNN` or `\u{NNNNN}` for one unsafe character. */
export function escapeChar(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  const code = c.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/** A value (key, holder, token, message part) with every control and format character escaped. */
export function safeText(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** Several lines of someone else's text (a scenario's narration): line breaks stay, the rest as safeText, colour codes too. */
export function safeProse(text: string): string {
  return text.split('\n').map(safeText).join('\n');
}

// Our own colours (SGR: ESC [ digits ; m) survive a line; any other escape sequence is escaped.
const LINE_UNSAFE = new RegExp(`\\x1b\\[[0-9;]*m|[${UNSAFE_CLASS.replace('\\x00-\\x1f', '\\x00-\\x08\\x0b-\\x1f')}]`, 'gu');

/**
 * A whole output line or block as the last net before the stream: newlines and tabs stay, colour
 * codes stay, every other control character is escaped. Values are escaped before they are
 * formatted (safeText); this catches what any formatter forgot.
 */
export function safeLine(text: string): string {
  return text.replace(LINE_UNSAFE, (m) => (m.startsWith('\x1b[') ? m : escapeChar(m)));
}

// JSON.stringify escapes C0 but leaves C1, DEL, U+2028/9 and format characters raw.
const JSON_UNSAFE = new RegExp(`[${UNSAFE_CLASS.replace('\\x00-\\x1f', '')}]`, 'gu');
const jsonUnit = (unit: number): string => `\\u${unit.toString(16).padStart(4, '0')}`;

/** JSON text with the characters JSON.stringify leaves raw written as \uNNNN (still valid JSON). */
export function safeJson(json: string): string {
  // A character past U+FFFF is written as its two UTF-16 halves, as JSON spells it.
  return json.replace(JSON_UNSAFE, (c) => Array.from({ length: c.length }, (_, i) => jsonUnit(c.charCodeAt(i))).join(''));
}

/** Every string inside `value` (objects, arrays) through safeText: for views fed to live screens. */
export function safeStrings<T>(value: T): T {
  if (typeof value === 'string') return safeText(value) as T;
  if (Array.isArray(value)) return value.map(safeStrings) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, safeStrings(v)])) as T;
  }
  return value;
}
