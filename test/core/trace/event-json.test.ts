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

  it('writes MONITOR times with microseconds as String() does, and numbers near its edges', () => {
    // Times as the MONITOR parser makes them (seconds * 1000 + microseconds / 1000), a fixed walk
    // of seeds so a failure repeats; then the edges of the fast path and fractions it must refuse.
    const times: number[] = [];
    let seed = 26;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 20_000; i++) times.push((1_000_000_000 + (next() % 2_000_000_000)) * 1000 + (next() % 1_000_000) / 1000);
    for (let usec = 0; usec < 1000; usec++) times.push(1_764_064_800_000 + usec / 1000, 1_764_064_800_999 + (999_000 + usec) / 1_000_000);
    const edges = [2 ** 30, 2 ** 43, 2 ** 41, 2 ** 42];
    for (const edge of edges) for (const d of [-0.5, -0.001, 0.001, 0.5, 0.999]) times.push(edge + d, edge * (1 + Number.EPSILON), edge * (1 - Number.EPSILON / 2));
    times.push(1_764_064_800_000 + 0.0001, 1_764_064_800_000 + 0.0005, 1_764_064_800_000 + 0.00049, 1 / 3 + 2 ** 35, 0.5, 1.5, 12.074);
    const lines = new JsonLines();
    for (const t of times) lines.event(event({ kind: 'renewed', t, lock: 'x' }));
    expect(lines.take()).toBe(times.map((t) => `${reference(event({ kind: 'renewed', t, lock: 'x' }))}\n`).join(''));
  });

  it('hands its bytes over as bytes of their own, and starts empty again', () => {
    const lines = new JsonLines();
    lines.event(EVENTS[0]![1]);
    const first = lines.takeBytes();
    // A line longer than the buffer (it grows), handed over too, then more lines after both.
    const long = EVENTS.at(-1)![1];
    lines.event(long);
    const second = lines.takeBytes();
    for (const [, e] of EVENTS) lines.event(e);
    lines.event(EVENTS[1]![1]);
    expect(Buffer.from(first).toString('utf8')).toBe(`${reference(EVENTS[0]![1])}\n`);
    expect(Buffer.from(second).toString('utf8')).toBe(`${reference(long)}\n`);
    expect(lines.take()).toBe([...EVENTS.map(([, e]) => e), EVENTS[1]![1]].map((e) => `${reference(e)}\n`).join(''));
  });

  it('writes whole numbers of every length, zeros inside and in front of their halves', () => {
    const numbers = [0, 7, 10, 99, 100, 1000, 30000, 999_999_999, 1e9, 1_000_000_007, 2 ** 31 - 1, 2 ** 31, 1_764_064_800_000, 1_764_064_800_005, 1_764_064_000_050];
    for (let digits = 1; digits <= 16; digits++) numbers.push(10 ** (digits - 1), 10 ** digits - 1, 10 ** (digits - 1) + 1, Math.floor(10 ** digits / 3));
    const lines = new JsonLines();
    for (const n of numbers) lines.event(event({ kind: 'acquired', t: n, lock: 'x', count: n }));
    expect(lines.take()).toBe(numbers.map((n) => `${reference(event({ kind: 'acquired', t: n, lock: 'x', count: n }))}\n`).join(''));
  });

  it('writes fields in any order, past the orders it remembers, and other keys between them', () => {
    // Shuffles with a fixed seed (a failure repeats): far more orders of the same fields than the
    // writer keeps, then the first orders again, and keys that are no event field among them.
    const fields: [string, unknown][] = [['kind', 'acquired'], ['t', 1764064800002], ['lock', 'job:1'], ['owner', 'tok1'], ['library', 'token'], ['count', 1], ['leaseMs', 30000], ['client', { addr: '127.0.0.1:5001' }], ['shared', false], ['holders', ['a']]];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const orders = Array.from({ length: 3000 }, () => {
      const order = [...fields];
      for (let i = order.length - 1; i > 0; i--) {
        const j = next() % (i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      return order;
    });
    const events = [...orders, ...orders.slice(0, 100)].map((order) => event(Object.fromEntries(order)));
    events.push(event({ 'not a field': 1, kind: 'raw', t: 1, other: 'x', lock: 'y', detail: 'z' }));
    const lines = new JsonLines();
    for (const e of events) lines.event(e);
    expect(lines.take()).toBe(events.map((e) => `${reference(e)}\n`).join(''));
  });

  it('writes each client of events that alternate between connections', () => {
    const [a, b] = [{ addr: '127.0.0.1:1', name: 'a' }, { addr: '127.0.0.1:2' }];
    const events = [a, a, b, a, b, b].map((client, i) => event({ kind: 'acquired', t: i, lock: 'x', client }));
    const lines = new JsonLines();
    for (const e of events) lines.event(e);
    expect(lines.take()).toBe(events.map((e) => `${reference(e)}\n`).join(''));
  });
});
