// The byte writer under event-json.ts: JSON text gathered as UTF-8 bytes in one growing buffer,
// with the few writes an event line is made of done without a string or a call into the runtime:
// bytes known in advance copied four at a time, printable ASCII strings copied as they are
// checked, numbers written as their digits two at a time.

import { safeJson } from '../terminal-text.js';

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();
export const [NEWLINE, QUOTE, COMMA, OPEN_LIST, CLOSE_LIST, CLOSE] = [10, 34, 44, 91, 93, 125];
const [DOT, ZERO, BACKSLASH] = [46, 48, 92];
/** "00" to "99" as the 16-bit little-endian words that write them (the tens digit first). */
const PAIRS = Uint16Array.from({ length: 100 }, (_, i) => ((ZERO + (i % 10)) << 8) | (ZERO + Math.floor(i / 10)));
/** Where numbers with three decimals are written without String() (see thousandths()). */
const [MIN_THOUSANDTHS, MAX_THOUSANDTHS] = [2 ** 30, 2 ** 43];
/** Far above the error of the arithmetic in thousandths() (about 1e-16), far below half an ulp there (over 1e-7). */
const ROUNDING_MARGIN = 1e-12;
/**
 * What a number, `true`, `false` or `null` may take: 16 digits of a safe integer, a dot and three
 * decimals. Longer numbers (String()'s exponents, negatives) are written as text, which makes its own room.
 */
export const NUMBER_ROOM = 24;

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

/**
 * Bytes known in advance (a key with what opens its value, a client's JSON), held as 32-bit words:
 * a word at a time is about twice as fast as byte by byte for these lengths, and far faster than
 * TypedArray.set's call. The last word may run up to 3 bytes past the chunk: `room` counts them.
 */
export class Chunk {
  readonly words: Uint32Array;
  readonly length: number;
  /** The bytes a copy touches: its length rounded up to whole words. */
  readonly room: number;

  constructor(text: string) {
    const bytes = ENCODER.encode(text);
    this.length = bytes.length;
    this.room = Math.ceil(bytes.length / 4) * 4;
    const padded = new Uint8Array(this.room);
    padded.set(bytes);
    const view = new DataView(padded.buffer);
    this.words = Uint32Array.from({ length: this.room / 4 }, (_, i) => view.getUint32(i * 4, true));
  }
}

export const [TRUE, FALSE, NULL] = [new Chunk('true'), new Chunk('false'), new Chunk('null')];

/** What the first buffer holds: a write's worth of lines (the output writes about this much at once). */
const CAPACITY = 96 * 1024;

/**
 * A buffer whose bytes are not zeroed first: only bytes written are ever handed on, and zeroing
 * (as `new Uint8Array` does) cost about 10 µs per 64 KiB, as much as writing 30 events.
 */
const unzeroed = (size: number): Uint8Array => Buffer.allocUnsafeSlow(size);
const viewOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** JSON text gathered as bytes, taken as text or bytes a write at a time. */
export class JsonBytes {
  protected bytes = unzeroed(CAPACITY);
  /** The same bytes, for 16- and 32-bit writes at any offset. */
  protected view = viewOf(this.bytes);
  protected at = 0;

  /** Bytes gathered so far. */
  get size(): number {
    return this.at;
  }

  /** Everything gathered, as text; the buffer starts again empty. */
  take(): string {
    const text = DECODER.decode(this.bytes.subarray(0, this.at));
    this.at = 0;
    return text;
  }

  /**
   * Everything gathered, as UTF-8 bytes of their own: the buffer itself is handed over (a stream
   * may hold it until written) and writing goes on in a new one, cheaper than copying it out.
   */
  takeBytes(): Uint8Array {
    const bytes = this.bytes.subarray(0, this.at);
    this.bytes = unzeroed(CAPACITY);
    this.view = viewOf(this.bytes);
    this.at = 0;
    return bytes;
  }

  /** Copies `chunk`; the caller made room for `chunk.room` bytes. */
  protected chunk(chunk: Chunk): void {
    const { view } = this;
    const { words } = chunk;
    const at = this.at;
    for (let i = 0; i < words.length; i++) view.setUint32(at + i * 4, words[i]!, true);
    this.at = at + chunk.length;
  }

  /**
   * A string of printable ASCII other than `"` and `\` copied as it is checked, then its closing
   * quote; any other is written by JSON.stringify and safeJson from `quote`, where its opening
   * quote was written.
   */
  protected stringBody(s: string, quote: number): void {
    this.ensure(s.length + 1);
    const { bytes } = this;
    let at = this.at;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) {
        this.at = quote;
        return this.text(safeJson(JSON.stringify(s)));
      }
      bytes[at++] = c;
    }
    bytes[at++] = QUOTE;
    this.at = at;
  }

  /** A string with its quotes (see stringBody). */
  protected string(s: string): void {
    this.ensure(1);
    const quote = this.at;
    this.bytes[this.at++] = QUOTE;
    this.stringBody(s, quote);
  }

  /**
   * A whole number up to 2^53 as its digits, an epoch-ms time with microseconds as its digits and
   * up to three decimals; any other as String() writes it (NaN, infinities: null). The caller made
   * NUMBER_ROOM.
   */
  protected number(n: number): void {
    if (!Number.isFinite(n)) return this.chunk(NULL);
    if (!Number.isInteger(n)) {
      if (!this.thousandths(n)) this.text(`${n}`);
      return;
    }
    if (n < 0 || n > Number.MAX_SAFE_INTEGER) return this.text(`${n}`);
    this.whole(n);
  }

  /** Text made elsewhere (escaped JSON, a line), as UTF-8. */
  protected text(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.ensure(text.length * 3);
    this.at += ENCODER.encodeInto(text, this.bytes.subarray(this.at)).written;
  }

  /** Room for `n` more bytes: a line longer than what is left (a long command) grows the buffer. */
  protected ensure(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const grown = unzeroed(Math.max(this.bytes.length * 2, this.at + n));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
    this.view = viewOf(grown);
  }

  /** A whole number in [0, 2^53]. */
  private whole(n: number): void {
    if (n < 1e9) return this.digits(n, digitCount(n));
    // An epoch-ms time: two halves that each fit a small integer, whose arithmetic is cheap.
    const high = Math.floor(n / 1e9);
    this.digits(high, digitCount(high));
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
    this.bytes[this.at++] = DOT;
    this.digits(digits, width);
    return true;
  }

  /** The last `count` decimal digits of `value` (a whole number below 1e9), zeros in front where it is shorter. */
  private digits(value: number, count: number): void {
    // As an int32 the divisions by 100 become a multiplication (a double's division is several times slower).
    let n = value | 0;
    const { view } = this;
    const end = this.at + count;
    let at = end;
    for (; at - this.at >= 2; at -= 2) {
      const rest = (n / 100) | 0;
      view.setUint16(at - 2, PAIRS[n - rest * 100]!, true);
      n = rest;
    }
    if (at > this.at) this.bytes[this.at] = ZERO + n;
    this.at = end;
  }
}

/** How many decimal digits `n` (a whole number below 1e9) has. */
function digitCount(value: number): number {
  const n = value | 0;
  let count = 1;
  for (let power = 10; power <= n; power *= 10) count++;
  return count;
}
