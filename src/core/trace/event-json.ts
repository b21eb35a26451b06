// Events as JSON lines, written as bytes for the event's shape: `trace --from` writes a line for
// nearly every MONITOR line, and JSON.stringify (strings built, numbers turned into text, all of
// it encoded again on the way out) was the largest cost of reading a log. The text is the one
// JSON.stringify gives, made safe as safeJson makes it, byte for byte: the keys in the event's own
// order (for...in walks them as JSON.stringify does), undefined fields left out, NaN and the
// infinities written as null, whole numbers as their digits (String()'s text, without making it),
// and any value that is not plain printable ASCII left to JSON.stringify and safeJson.

import { safeJson } from '../terminal-text.js';
import { EVENT_FIELDS } from './event-shape.js';
import type { TraceClient, TraceEvent } from './events.js';

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();
const [NEWLINE, QUOTE, ZERO, BACKSLASH, CLOSE] = [10, 34, 48, 92, 125];
const START = ENCODER.encode('{"type":"event"');
const [TRUE, FALSE, NULL] = [ENCODER.encode('true'), ENCODER.encode('false'), ENCODER.encode('null')];
/** `,"kind":` for each field an event may have; any other key (a recording may carry one) is escaped. */
const KEYS = new Map(Object.keys(EVENT_FIELDS).map((key) => [key, ENCODER.encode(`,"${key}":`)]));
/** One JSON text per client object: the decoder hands every event of a connection the same one. */
const clientTexts = new WeakMap<TraceClient, Uint8Array>();

/** What the first buffer holds: a write's worth of lines (the output writes about this much at once). */
const CAPACITY = 96 * 1024;

/** Output lines gathered as bytes (events written as JSON), taken as text a write at a time. */
export class JsonLines {
  private bytes = new Uint8Array(CAPACITY);
  private at = 0;

  /** Bytes gathered so far. */
  get size(): number {
    return this.at;
  }

  /** Appends `{"type":"event",...}` and a line break. */
  event(e: TraceEvent): void {
    this.raw(START);
    const fields = e as unknown as Readonly<Record<string, unknown>>;
    for (const key in fields) {
      const v = fields[key];
      // undefined, a function, a symbol: JSON.stringify leaves the field out (and throws on a bigint, as it did).
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      const name = KEYS.get(key);
      if (name) this.raw(name);
      else this.text(`,${safeJson(JSON.stringify(key))}:`);
      this.value(key, v);
    }
    this.ensure(2);
    this.bytes[this.at++] = CLOSE;
    this.bytes[this.at++] = NEWLINE;
  }

  /** Appends a line made elsewhere (a finding's JSON, a line of text), already safe, and a line break. */
  line(text: string): void {
    this.text(text);
    this.ensure(1);
    this.bytes[this.at++] = NEWLINE;
  }

  /** Everything gathered, as text; the buffer starts again empty. */
  take(): string {
    const text = DECODER.decode(this.bytes.subarray(0, this.at));
    this.at = 0;
    return text;
  }

  private value(key: string, v: unknown): void {
    switch (typeof v) {
      case 'string':
        return this.string(v);
      case 'number':
        return this.number(v);
      case 'boolean':
        return this.raw(v ? TRUE : FALSE);
    }
    if (v === null) return this.raw(NULL);
    if (Array.isArray(v)) return this.list(v);
    if (key === 'client') return this.client(v as TraceClient);
    this.text(safeJson(JSON.stringify(v)));
  }

  /** A string of printable ASCII other than `"` and `\` is copied between quotes; any other is escaped. */
  private string(s: string): void {
    this.ensure(s.length + 2);
    const { bytes } = this;
    const start = this.at;
    let at = start;
    bytes[at++] = QUOTE;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) {
        this.at = start;
        return this.text(safeJson(JSON.stringify(s)));
      }
      bytes[at++] = c;
    }
    bytes[at++] = QUOTE;
    this.at = at;
  }

  /** A whole number up to 2^53 as its digits; any other as String() writes it (NaN, infinities: null). */
  private number(n: number): void {
    if (!Number.isFinite(n)) return this.raw(NULL);
    if (!Number.isInteger(n) || n < 0 || n > Number.MAX_SAFE_INTEGER) return this.text(`${n}`);
    if (n < 1e9) return this.digits(n, 1);
    // An epoch-ms time: two halves that each fit a small integer, whose arithmetic is cheap.
    const high = Math.floor(n / 1e9);
    this.digits(high, 1);
    this.digits(n - high * 1e9, 9);
  }

  /** The decimal digits of `n` (a whole number below 1e9), zeros in front up to `width`. */
  private digits(n: number, width: number): void {
    let count = 1;
    for (let power = 10; power <= n; power *= 10) count++;
    if (count < width) count = width;
    this.ensure(count);
    const { bytes } = this;
    let at = this.at + count;
    this.at = at;
    for (let i = 0; i < count; i++) {
      const rest = (n / 10) | 0;
      bytes[--at] = ZERO + n - rest * 10;
      n = rest;
    }
  }

  /** A list of strings (holders, a command); any other list as JSON.stringify writes it. */
  private list(list: readonly unknown[]): void {
    if (!list.every((item) => typeof item === 'string')) return this.text(safeJson(JSON.stringify(list)));
    this.text('[');
    list.forEach((item, i) => {
      if (i > 0) this.text(',');
      this.string(item as string);
    });
    this.text(']');
  }

  private client(client: TraceClient): void {
    let text = clientTexts.get(client);
    if (text === undefined) {
      text = ENCODER.encode(safeJson(JSON.stringify(client)));
      clientTexts.set(client, text);
    }
    this.raw(text);
  }

  private raw(chunk: Uint8Array): void {
    this.ensure(chunk.length);
    const { bytes } = this;
    let at = this.at;
    for (let i = 0; i < chunk.length; i++) bytes[at++] = chunk[i]!;
    this.at = at;
  }

  private text(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.ensure(text.length * 3);
    this.at += ENCODER.encodeInto(text, this.bytes.subarray(this.at)).written;
  }

  /** Room for `n` more bytes: a line longer than what is left (a long command) grows the buffer. */
  private ensure(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
  }
}

const single = new JsonLines();

/** `{"type":"event",...}` for one event (a recording's line, a live --json line), without its line break. */
export function eventJson(e: TraceEvent): string {
  single.event(e);
  return single.take().slice(0, -1);
}
