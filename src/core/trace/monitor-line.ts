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

const HEAD = /^(\d+)\.(\d{1,6}) \[(\d+) /;
const ENCODER = new TextEncoder();
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { n: 10, r: 13, t: 9, a: 7, b: 8 };
const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { ...CONTROL_ESCAPES, '"': 34, '\\': 92 };

/** Parses one MONITOR line; undefined when it is not a command line. */
export function parseMonitorLine(line: string): MonitorLine | undefined {
  const head = HEAD.exec(line);
  if (!head) return undefined;
  const sourceStart = head[0].length;
  const sourceEnd = line.indexOf('] "', sourceStart);
  if (sourceEnd < 0) return undefined;
  const args = parseArgs(line, sourceEnd + 2) ?? parseUnescapedQuotes(line, sourceEnd + 2);
  if (!args || args.length === 0) return undefined;
  const t = Number(head[1]) * 1000 + Number(head[2]!.padEnd(6, '0')) / 1000;
  return { t, db: Number(head[3]), source: line.slice(sourceStart, sourceEnd), args };
}

function parseArgs(line: string, start: number): string[] | undefined {
  const args: string[] = [];
  let i = start;
  while (i < line.length) {
    if (line[i] === ' ') {
      i++;
      continue;
    }
    if (line[i] !== '"') return undefined;
    const close = closingQuote(line, i + 1);
    if (close < 0) return undefined;
    const body = line.slice(i + 1, close);
    // Fast path: most arguments carry no escape at all.
    args.push(body.includes('\\') ? unescapeArgument(body, SIMPLE_ESCAPES) : body);
    i = close + 1;
  }
  return args;
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

/** Index of the quote ending an argument that starts at `from` (escaped quotes skipped). */
function closingQuote(line: string, from: number): number {
  for (let i = from; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return -1;
}

function unescapeArgument(body: string, escapes: Readonly<Record<string, number>>): string {
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      const code = c.charCodeAt(0);
      if (code < 0x80) bytes.push(code);
      else bytes.push(...ENCODER.encode(c));
      continue;
    }
    const next = body[i + 1] ?? '';
    if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(body.slice(i + 2, i + 4))) {
      bytes.push(parseInt(body.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (next in escapes) {
      bytes.push(escapes[next]!);
      i++;
    } else bytes.push(92);
  }
  return bytesToText(Uint8Array.from(bytes)).text;
}

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
