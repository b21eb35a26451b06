// One line of the server's MONITOR stream (also what `redis-cli monitor` saves):
//   1764064800.123456 [0 127.0.0.1:53210] "SET" "orders" "6f1c" "NX" "PX" "30000"
//   1764064800.123470 [0 lua] "pexpire" "orders" "30000"
// Redis quotes every argument and escapes it like sdscatrepr: \" \\ \n \r \t \a \b and \xHH for
// any other byte that is not printable ASCII, so UTF-8 names arrive as \xHH sequences and are
// decoded back here. A line that does not look like this is not a command (redis-cli's "OK").
// Valkey 8.1.0 and 8.1.1 print " and \ inside an argument as they are (docs/monitor-format.md):
// a line that does not parse as escaped is read that way, its arguments split at `" "`.

import { bytesToText } from '../decode/escape.js';

export interface MonitorLine {
  /** Server time in epoch milliseconds (microsecond precision kept as a fraction). */
  readonly t: number;
  readonly db: number;
  /** `lua` for a command a script ran, else the client's address (`127.0.0.1:53210`, `unix:/path`). */
  readonly source: string;
  /** Command name (as sent) and arguments, unescaped. */
  readonly args: readonly string[];
}

const ENCODER = new TextEncoder();
/** One decoder for every escaped argument (fatal: bytes that are not UTF-8 are shown as \xHH instead). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { n: 10, r: 13, t: 9, a: 7, b: 8 };
const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { ...CONTROL_ESCAPES, '"': 34, '\\': 92 };
const [SPACE, QUOTE, BACKSLASH, DOT, OPEN, ZERO] = [32, 34, 92, 46, 91, 48];
/** Digits beyond which a number is left to Number() (summing digits could round differently). */
const EXACT_DIGITS = 15;

// Runs for every line of a log of gigabytes: the line is scanned by character code, once, with no
// regular expression and no substring that is not a field of the result.

/** Parses one MONITOR line; undefined when it is not a command line. */
export function parseMonitorLine(line: string): MonitorLine | undefined {
  // `<seconds>.<1-6 digits> [<db> `
  const dot = digitsEnd(line, 0);
  const seconds = scanned.value;
  if (dot === 0 || line.charCodeAt(dot) !== DOT) return undefined;
  const usecEnd = digitsEnd(line, dot + 1);
  const fraction = scanned.value;
  if (usecEnd === dot + 1 || usecEnd - dot - 1 > 6 || line.charCodeAt(usecEnd) !== SPACE || line.charCodeAt(usecEnd + 1) !== OPEN) return undefined;
  const dbEnd = digitsEnd(line, usecEnd + 2);
  const db = scanned.value;
  if (dbEnd === usecEnd + 2 || line.charCodeAt(dbEnd) !== SPACE) return undefined;
  const sourceStart = dbEnd + 1;
  const sourceEnd = line.indexOf('] "', sourceStart);
  if (sourceEnd < 0) return undefined;
  const args = parseArgs(line, sourceEnd + 2) ?? parseUnescapedQuotes(line, sourceEnd + 2);
  if (!args || args.length === 0) return undefined;
  // The fraction as microseconds: "5" is 500000, as the server pads it.
  const usec = fraction * 10 ** (6 - (usecEnd - dot - 1));
  const t = seconds * 1000 + usec / 1000;
  return { t, db, source: sourceAt(line, sourceStart, sourceEnd), args };
}

const LUA = 'lua';

/** The line's source: `lua` (half the lines of a log of scripts) as one constant string, else its text. */
const sourceAt = (line: string, from: number, to: number): string => (to - from === 3 && line.startsWith(LUA, from) ? LUA : line.slice(from, to));

/** The number digitsEnd() read last, as Number() would read its digits (a field: a module's `let` is slower to write). */
const scanned = { value: 0 };

/**
 * The index after the run of ASCII digits that starts at `from` (`from` itself: none); their
 * number is left in scanned.value (one pass: this runs three times per line).
 */
function digitsEnd(line: string, from: number): number {
  let i = from;
  let n = 0;
  for (let c = line.charCodeAt(i); c >= ZERO && c <= ZERO + 9; c = line.charCodeAt(++i)) n = n * 10 + (c - ZERO);
  // Past 15 digits the sum could round differently from Number()'s reading.
  scanned.value = i - from > EXACT_DIGITS ? Number(line.slice(from, i)) : n;
  return i;
}

/** Quoted arguments from `start`, separated by spaces; undefined when one is not closed or not quoted. */
function parseArgs(line: string, start: number): string[] | undefined {
  // Gathered in one reused array and copied out at their exact count: an array grown by push
  // from empty takes room for 16 or more (most lines have 3 to 8 arguments). Its length is not
  // reset, which would free its room: the slots past `count` keep the longest line's last words.
  const args = scratchArgs;
  let count = 0;
  const end = line.length;
  // Most arguments hold no escape: each is cut out between two quotes found by indexOf, and only
  // one that holds the line's next backslash is scanned character by character.
  let backslash = line.indexOf('\\', start);
  let i = start;
  while (i < end) {
    const c = line.charCodeAt(i);
    if (c === SPACE) {
      i++;
      continue;
    }
    if (c !== QUOTE) return undefined;
    let close = line.indexOf('"', i + 1);
    if (close < 0) return undefined;
    if (backslash < 0 || backslash > close) {
      args[count++] = line.slice(i + 1, close);
      i = close + 1;
      continue;
    }
    const known = recentBodyAt(line, i + 1);
    if (known !== undefined) {
      args[count++] = known.text;
      i += known.escaped.length + 2;
      backslash = line.indexOf('\\', i);
      continue;
    }
    // The closing quote is the first one after the backslash that is not escaped.
    for (close = backslash; close < end; close++) {
      const ch = line.charCodeAt(close);
      if (ch === BACKSLASH) close++;
      else if (ch === QUOTE) break;
    }
    if (close >= end) return undefined;
    args[count++] = unescapeRepeated(line, i + 1, close);
    i = close + 1;
    backslash = line.indexOf('\\', i);
  }
  return args.slice(0, count);
}

const scratchArgs: string[] = [];

/**
 * Long escaped arguments (script bodies, sent again with every EVAL) met lately, with their
 * unescaped text, most recent first: one met again is recognised where it stands in the line (no
 * scan for its close, no unescaping, no hash) and the decoder gets the very same string again (its
 * hash already known to the maps it is looked up in).
 */
interface RecentBody {
  readonly escaped: string;
  readonly text: string;
}
const recentBodies: RecentBody[] = [];
const REPEATED_LENGTH = 32;
const MAX_RECENT_BODIES = 16;

/**
 * A recent body that stands at `from` and is closed there by its quote: its escapes are the same
 * as when it was first met, so that quote is not escaped. The line is not scanned for the close.
 */
function recentBodyAt(line: string, from: number): RecentBody | undefined {
  for (let k = 0; k < recentBodies.length; k++) {
    const body = recentBodies[k]!;
    const to = from + body.escaped.length;
    // A slice and a comparison: much cheaper than startsWith over a long body on Node 20.
    if (line.charCodeAt(to) !== QUOTE || line.slice(from, to) !== body.escaped) continue;
    if (k > 0) recentBodies.copyWithin(1, 0, k)[0] = body;
    return body;
  }
  return undefined;
}

/** The argument escaped in line[from, to), unescaped; a long one is remembered among the recent bodies. */
function unescapeRepeated(line: string, from: number, to: number): string {
  if (to - from < REPEATED_LENGTH) return unescapeArgument(line.slice(from, to), SIMPLE_ESCAPES);
  // A copy of its own: a slice would keep its whole line while it is remembered.
  const escaped = ' '.concat(line.slice(from, to)).slice(1);
  const text = unescapeArgument(escaped, SIMPLE_ESCAPES);
  if (recentBodies.length >= MAX_RECENT_BODIES) recentBodies.pop();
  recentBodies.unshift({ escaped, text });
  return text;
}

/**
 * The arguments of a line whose quotes and backslashes were not escaped (Valkey 8.1.0-8.1.1): they
 * stand between `"` at `start` and the line's last `"`, separated by `" "`. Control bytes and
 * non-ASCII bytes are still escaped there (\n, \xHH), so those are undone; \" and \\ are not
 * escapes in this form and stay as they are.
 */
function parseUnescapedQuotes(line: string, start: number): string[] | undefined {
  if (line[start] !== '"' || line.length < start + 2 || !line.endsWith('"')) return undefined;
  return line.slice(start + 1, -1).split('" "').map((body) => (body.includes('\\') ? unescapeArgument(body, CONTROL_ESCAPES) : body));
}

/** Bytes of the argument being unescaped, reused from line to line (grown when one is longer). */
let scratch = new Uint8Array(256);

function unescapeArgument(body: string, escapes: Readonly<Record<string, number>>): string {
  // A UTF-8 character takes at most 3 bytes per UTF-16 unit; an escape is never longer than its text.
  if (scratch.length < body.length * 3) scratch = new Uint8Array(body.length * 3);
  const bytes = scratch;
  let n = 0;
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i);
    if (code !== BACKSLASH) {
      if (code < 0x80) bytes[n++] = code;
      else for (const b of ENCODER.encode(body[i]!)) bytes[n++] = b;
      continue;
    }
    const next = body[i + 1] ?? '';
    if (next === 'x' && isHex(body.charCodeAt(i + 2)) && isHex(body.charCodeAt(i + 3))) {
      bytes[n++] = parseInt(body.slice(i + 2, i + 4), 16);
      i += 3;
    } else if (next in escapes) {
      bytes[n++] = escapes[next]!;
      i++;
    } else bytes[n++] = BACKSLASH;
  }
  try {
    return UTF8.decode(bytes.subarray(0, n));
  } catch {
    return bytesToText(bytes.slice(0, n)).text;
  }
}

const isHex = (c: number): boolean => (c >= ZERO && c <= ZERO + 9) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** The MONITOR line for a command, as the server would print it (tests and `--from` fixtures). */
export function formatMonitorLine(line: MonitorLine): string {
  const sec = Math.floor(line.t / 1000);
  const usec = Math.round((line.t - sec * 1000) * 1000);
  return `${sec}.${String(usec).padStart(6, '0')} [${line.db} ${line.source}] ${line.args.map(quoteArg).join(' ')}`;
}

function quoteArg(arg: string): string {
  let out = '"';
  for (const b of ENCODER.encode(arg)) {
    if (b === 34 || b === 92) out += `\\${String.fromCharCode(b)}`;
    else if (b === 10) out += '\\n';
    else if (b === 13) out += '\\r';
    else if (b === 9) out += '\\t';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}
