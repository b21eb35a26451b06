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
const [NEWLINE, QUOTE, DOT, ZERO, BACKSLASH, CLOSE] = [10, 34, 46, 48, 92, 125];
/** Where numbers with three decimals are written without String() (see thousandths()). */
const [MIN_THOUSANDTHS, MAX_THOUSANDTHS] = [2 ** 30, 2 ** 43];
/** Far above the error of the arithmetic in thousandths() (about 1e-16), far below half an ulp there (over 1e-7). */
const ROUNDING_MARGIN = 1e-12;

/** The binade [low, 2 * low) of the last number halfUlp() was asked about, and its answer: times come in order. */
let binade = { low: 1, half: Number.EPSILON / 2 };

/** Half a unit in the last place of `n` (a positive normal double). */
function halfUlp(n: number): number {
  if (n >= binade.low && n < binade.low * 2) return binade.half;
  let low = 2 ** Math.floor(Math.log2(n));
  // log2 may round across a power of two: the power is put right by one step either way.
  if (low > n) low /= 2;
  else if (low * 2 <= n) low *= 2;
  binade = { low, half: low * Number.EPSILON * 0.5 };
  return binade.half;
}

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
  private lastClient: TraceClient | undefined;
  private lastClientText: Uint8Array = new Uint8Array(0);

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

  /**
   * Everything gathered, as UTF-8 bytes of its own (a stream may hold them until written, while
   * this buffer is filled again); the buffer starts again empty.
   */
  takeBytes(): Uint8Array {
    const bytes = this.bytes.slice(0, this.at);
    this.at = 0;
    return bytes;
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

  /**
   * A whole number up to 2^53 as its digits, an epoch-ms time with microseconds as its digits and
   * up to three decimals; any other as String() writes it (NaN, infinities: null).
   */
  private number(n: number): void {
    if (!Number.isFinite(n)) return this.raw(NULL);
    if (!Number.isInteger(n)) {
      if (!this.thousandths(n)) this.text(`${n}`);
      return;
    }
    if (n < 0 || n > Number.MAX_SAFE_INTEGER) return this.text(`${n}`);
    this.whole(n);
  }

  /** A whole number in [0, 2^53]. */
  private whole(n: number): void {
    if (n < 1e9) return this.digits(n, 1);
    // An epoch-ms time: two halves that each fit a small integer, whose arithmetic is cheap.
    const high = Math.floor(n / 1e9);
    this.digits(high, 1);
    this.digits(n - high * 1e9, 9);
  }

  /**
   * Writes `n` as String() does when that is its whole part and one to three decimals (a MONITOR
   * time in ms: a microsecond is 0.001), else writes nothing and says false. String() gives the
   * shortest decimal that reads back as `n`. Between 2^30 and 2^43 one unit in the last place
   * (ulp) is under 0.001, so at most one number of three decimals lies within half an ulp of `n`:
   * when the nearest one does (with a margin far above the error of this arithmetic), it reads
   * back as `n` and none shorter does, so it is String()'s text.
   */
  private thousandths(n: number): boolean {
    if (n < MIN_THOUSANDTHS || n >= MAX_THOUSANDTHS) return false;
    const whole = Math.floor(n);
    const fraction = n - whole; // exact for n >= 1 (Sterbenz)
    const milli = Math.round(fraction * 1000);
    if (milli === 0 || milli === 1000) return false;
    if (Math.abs(milli / 1000 - fraction) >= halfUlp(n) - ROUNDING_MARGIN) return false;
    this.whole(whole);
    // The decimals without trailing zeros: .5 not .500.
    let digits = milli;
    let width = 3;
    while (digits % 10 === 0) {
      digits /= 10;
      width--;
    }
    this.ensure(1);
    this.bytes[this.at++] = DOT;
    this.digits(digits, width);
    return true;
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
    // Events come in runs of one connection's (a command, then its script's): the last client's
    // text is at hand without a lookup.
    if (client !== this.lastClient) {
      let text = clientTexts.get(client);
      if (text === undefined) {
        text = ENCODER.encode(safeJson(JSON.stringify(client)));
        clientTexts.set(client, text);
      }
      this.lastClient = client;
      this.lastClientText = text;
    }
    this.raw(this.lastClientText);
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
