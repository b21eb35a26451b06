import { describe, expect, it } from 'vitest';
import { decodeSnapshot } from '../../src/core/decode/index.js';
import { recognize } from '../../src/core/decode/recognize.js';
import { NOW, stringRaw } from './decode-fixtures.js';
import { INTEGER_SHAPE, TOKEN_SHAPES, uuid1Hex } from './token-shapes.js';

// Issue 24: the shape of a value alone never makes a string a lock. Every token library sets a
// TTL; without one, a string in a token's shape is application data that could be a token lock
// set without expiry: a note, never an error.

const shaped = TOKEN_SHAPES.filter((s) => s.library !== undefined);
const unshaped = TOKEN_SHAPES.filter((s) => s.library === undefined);

describe('strings in a token shape', () => {
  it('uuid1Hex makes what redis-py stores', () => {
    // Python's uuid1().hex made at this ms: the same but for the ticks below a millisecond.
    const real = '59df7b8ee63811f19a7e02fc00000001';
    const made = uuid1Hex(1_795_326_512_557);
    expect([made.slice(0, 5), made.slice(8)]).toEqual([real.slice(0, 5), real.slice(8)]);
  });

  it.each(shaped.map((s) => [s.shape, s] as const))('%s with a TTL: a token lock of its library', (_name, s) => {
    const value = s.value(NOW);
    const v = decodeSnapshot(stringRaw(value, { key: s.key, pttl: 30_000 }));
    expect(v).toMatchObject({ kind: 'token', library: s.library, value });
    expect(v.warnings.map((w) => [w.code, w.severity])).toEqual((s.notes ?? []).map((code) => [code, 'info']));
  });

  it.each(shaped.map((s) => [s.shape, s] as const))('%s without TTL: plain data that could be a token lock, one note', (_name, s) => {
    const snapshot = stringRaw(s.value(NOW), { key: s.key, pttl: -1 });
    expect(recognize(snapshot)).toEqual({ kind: 'not-a-lock', alternatives: ['token'], tokenWithoutExpiry: s.library });
    const v = decodeSnapshot(snapshot);
    expect(v).toMatchObject({ kind: 'not-a-lock', holders: [], ttlMs: -1 });
    expect(v.warnings).toEqual([{ code: 'token-without-expiry', severity: 'info', message: expect.stringContaining('could be a token lock set without expiry') }]);
    expect(v.warnings[0]!.message).toMatch(s.library === 'unknown' ? /its name looks like a lock/ : new RegExp(`the form of a ${s.library} token`));
  });

  it.each(unshaped.map((s) => [s.shape, s] as const))('%s: plain data with or without TTL, no note of a lock', (_name, s) => {
    for (const pttl of [30_000, -1]) {
      const v = decodeSnapshot(stringRaw(s.value(NOW), { key: s.key, pttl }));
      expect(v.kind).toBe('not-a-lock');
      expect(v.warnings.map((w) => [w.code, w.severity])).toEqual([['ambiguous-kind', 'info']]);
    }
  });

  it('an explicit --kind token still reads a TTL-less one as a lock, and then its missing TTL is the error', () => {
    const v = decodeSnapshot(stringRaw('5f4dcc3b5aa765d61d8327deb882cf99', { key: 'file:abc:md5', pttl: -1 }), { kind: 'token' });
    expect(v).toMatchObject({ kind: 'token', library: 'node-redlock' });
    expect(v.warnings.map((w) => [w.code, w.severity])).toEqual([['no-ttl', 'error']]);
  });

  it('an integer: a token lock with a TTL under a lock-like name, a semaphore without one', () => {
    expect(recognize(stringRaw('1', { key: INTEGER_SHAPE.key, pttl: 30_000 })).kind).toBe('token');
    const v = decodeSnapshot(stringRaw('1', { key: INTEGER_SHAPE.key, pttl: -1 }));
    expect(v.kind).toBe('semaphore');
    expect(v.warnings.filter((w) => w.severity !== 'info')).toEqual([]);
  });
});
