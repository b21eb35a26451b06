import { describe, expect, it } from 'vitest';
import { safeJson } from '../../../src/core/terminal-text.js';
import { eventJson, JsonLines } from '../../../src/core/trace/event-json.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';

// The event writer must give the very text JSON.stringify (made safe by safeJson) gives: what
// `trace --from --json` printed before it, and what any JSON reader expects.
const reference = (e: TraceEvent) => safeJson(JSON.stringify({ type: 'event', ...e }));
const event = (fields: Record<string, unknown>) => fields as unknown as TraceEvent;

const EVENTS: readonly [string, TraceEvent][] = [
  ['a decoded event, keys in its own order', event({ lock: 'job:1', library: 'token', owner: 'tok1', kind: 'acquired', count: 1, leaseMs: 30000, t: 1764064800002, client: { addr: '127.0.0.1:5001' } })],
  ['a time with microseconds', event({ kind: 'renewed', t: 1764064800123.456, lock: 'orders', leaseMs: 0.5 })],
  ['times at the edges of whole numbers', event({ kind: 'raw', t: 2 ** 31, lock: 'x', deadline: 2 ** 53 - 1, count: 0, leaseMs: 2 ** 53 + 2 })],
  ['negative numbers and -0', event({ kind: 'raw', t: -1764064800000, lock: 'x', leaseMs: -0, count: -3 })],
  ['NaN and infinities', event({ kind: 'renewed', t: 1, lock: 'x', leaseMs: Number.NaN, count: Number.POSITIVE_INFINITY, deadline: Number.NEGATIVE_INFINITY })],
  ['undefined fields', event({ kind: 'acquired', t: 1, lock: 'x', owner: undefined, leaseMs: undefined, shared: true, overwrite: false })],
  ['quotes, backslashes and controls', event({ kind: 'raw', t: 1, lock: 'a"b\\c\nd\te\u0001', detail: '\u007f\u0085 \u2028 \u200b \u{e0001}' })],
  ['non-ASCII names', event({ kind: 'acquired', t: 1, lock: 'zamówienia:€', owner: '\ud83d\udd12', client: { addr: 'unix:/tmp/r.sock', name: 'työ' } })],
  ['a lone surrogate', event({ kind: 'raw', t: 1, lock: '\ud800x' })],
  ['lists of strings', event({ kind: 'force-unlocked', t: 1, lock: 'x', holders: ['a', 'b"c'], command: [] })],
  ['keys and values a recording may carry', event({ kind: 'raw', t: 1, lock: 'x', 'odd "key"': 1, extra: { nested: [1, null, 'x\u0085'] }, mixed: ['a', 2], none: null })],
  ['a line longer than the buffer', event({ kind: 'raw', t: 1, lock: 'x', command: ['EVAL', 'x'.repeat(300_000), 'é'.repeat(50_000)] })],
];

describe('event JSON lines', () => {
  for (const [what, e] of EVENTS) {
    it(`${what}: the text JSON.stringify and safeJson give`, () => {
      expect(eventJson(e)).toBe(reference(e));
    });
  }

  it('gathers events and other lines, each ending in a line break, and starts empty again', () => {
    const lines = new JsonLines();
    for (const [, e] of EVENTS) lines.event(e);
    lines.line('{"type":"finding"}');
    const expected = `${[...EVENTS.map(([, e]) => reference(e)), '{"type":"finding"}'].join('\n')}\n`;
    expect(lines.size).toBe(Buffer.byteLength(expected));
    expect(lines.take()).toBe(expected);
    expect(lines.size).toBe(0);
    lines.event(EVENTS[0]![1]);
    expect(lines.take()).toBe(`${reference(EVENTS[0]![1])}\n`);
  });
});
