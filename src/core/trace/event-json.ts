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
import {
  CLOSE,
  CLOSE_LIST,
  COMMA,
  Chunk,
  FALSE,
  JsonBytes,
  NEWLINE,
  NULL,
  NUMBER_ROOM,
  OPEN_LIST,
  TRUE,
} from './json-bytes.js';

const START = new Chunk('{"type":"event"');

/** A known field's key as written: `,"lock":`, and with a string value's opening quote, `,"lock":"`. */
interface Key {
  readonly plain: Chunk;
  readonly quoted: Chunk;
}
/** Each field an event may have; any other key (a recording may carry one) is escaped. */
const KEYS = new Map<string, Key>(
  Object.keys(EVENT_FIELDS).map((key) => [key, { plain: new Chunk(`,"${key}":`), quoted: new Chunk(`,"${key}":"`) }]),
);
/** What any field but a string or a client takes: its key (with a quote, the longer) and a number. */
const FIELD_ROOM = Math.max(...[...KEYS.values()].map((key) => key.quoted.room)) + NUMBER_ROOM;
/** Where the tree of key orders stops growing: far above the decoder's shapes (a recording may order fields any way). */
const MAX_STEPS = 1024;
let steps = 0;

/**
 * A key in one order of keys seen: events come in a few shapes (each place in the decoder builds
 * its fields in one order), so the next key is found among the one or two that followed this one
 * before, by identity, instead of by its name in KEYS. Past MAX_STEPS keys are looked up by name.
 */
class KeyStep {
  private readonly next: KeyStep[] = [];
  constructor(
    readonly name: string,
    readonly key: Key | undefined,
  ) {}

  /** The step for `name` after this one; undefined for a name that is not an event field, or when the tree is full. */
  follow(name: string): KeyStep | undefined {
    for (const step of this.next) if (step.name === name) return step;
    const key = KEYS.get(name);
    if (key === undefined || steps >= MAX_STEPS) return undefined;
    steps++;
    const step = new KeyStep(name, key);
    this.next.push(step);
    return step;
  }
}
const FIRST_KEYS = new KeyStep('', undefined);

/** One JSON text per client object: the decoder hands every event of a connection the same one. */
const clientTexts = new WeakMap<TraceClient, Chunk>();

/** Output lines gathered as bytes (events written as JSON), taken as text a write at a time. */
export class JsonLines extends JsonBytes {
  private lastClient: TraceClient | undefined;
  private lastClientText = new Chunk('');

  /** Appends `{"type":"event",...}` and a line break. */
  event(e: TraceEvent): void {
    this.ensure(START.room);
    this.chunk(START);
    const fields = e as unknown as Readonly<Record<string, unknown>>;
    let step: KeyStep | undefined = FIRST_KEYS;
    for (const name in fields) {
      const v = fields[name];
      step = step?.follow(name);
      // undefined, a function, a symbol: JSON.stringify leaves the field out (and throws on a bigint, as it did).
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      this.ensure(FIELD_ROOM);
      const known = step !== undefined ? step.key : KEYS.get(name);
      if (known === undefined) {
        this.text(`,${safeJson(JSON.stringify(name))}:`);
        this.value(name, v);
      } else if (typeof v === 'string') {
        const quote = this.at + known.quoted.length - 1;
        this.chunk(known.quoted);
        this.stringBody(v, quote);
      } else {
        this.chunk(known.plain);
        this.value(name, v);
      }
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

  /** A field's value; the caller made NUMBER_ROOM. */
  private value(key: string, v: unknown): void {
    switch (typeof v) {
      case 'string':
        return this.string(v);
      case 'number':
        return this.number(v);
      case 'boolean':
        return this.chunk(v ? TRUE : FALSE);
    }
    if (v === null) return this.chunk(NULL);
    if (Array.isArray(v)) return this.list(v);
    if (key === 'client') return this.client(v as TraceClient);
    this.text(safeJson(JSON.stringify(v)));
  }

  /** A list of strings (holders, a command); any other list as JSON.stringify writes it. */
  private list(list: readonly unknown[]): void {
    if (!list.every((item) => typeof item === 'string')) return this.text(safeJson(JSON.stringify(list)));
    this.bytes[this.at++] = OPEN_LIST;
    list.forEach((item, i) => {
      if (i > 0) {
        this.ensure(1);
        this.bytes[this.at++] = COMMA;
      }
      this.string(item as string);
    });
    this.ensure(1);
    this.bytes[this.at++] = CLOSE_LIST;
  }

  private client(client: TraceClient): void {
    // Events come in runs of one connection's (a command, then its script's): the last client's
    // text is at hand without a lookup.
    if (client !== this.lastClient) {
      let text = clientTexts.get(client);
      if (text === undefined) {
        text = new Chunk(safeJson(JSON.stringify(client)));
        clientTexts.set(client, text);
      }
      this.lastClient = client;
      this.lastClientText = text;
    }
    this.ensure(this.lastClientText.room);
    this.chunk(this.lastClientText);
  }
}

const single = new JsonLines();

/** `{"type":"event",...}` for one event (a recording's line, a live --json line), without its line break. */
export function eventJson(e: TraceEvent): string {
  single.event(e);
  return single.take().slice(0, -1);
}
