import { describe, expect, it } from 'vitest';
import { decodeSnapshot } from '../../src/core/decode/index.js';
import { isRecentUuid1Hex, tokenLibrary } from '../../src/core/decode/token-library.js';
import { A, B, NOW, raw, stringRaw } from './decode-fixtures.js';

// A real redis-py token: Python's uuid.uuid1().hex, and the epoch ms it was made at.
const PY_UUID1 = '59df7b8ee63811f19a7e02fc00000001';
const PY_MADE_AT = 1_795_326_512_557;
const channels = (c: Partial<{ lock: number; rw: number; semaphore: number; latch: number }>) => ({
  channels: { lock: 0, rw: 0, semaphore: 0, latch: 0, ...c },
});

describe('token locks and their library', () => {
  it.each([
    ['orders', 'aabbccddeeff00112233445566778899', 'node-redlock'],
    ['orders', PY_UUID1, 'redis-py'],
    ['orders', 'q83vEjRWeJASNFZ4kBI0Vg==', 'redsync'],
    ['mutex:orders', '0b6c8b1e-3f0a-4d0e-9a55-2f1c9e8d7b6a', 'redis-semaphore'],
    ['locks:orders', '0b6c8b1e-3f0a-4d0e-9a55-2f1c9e8d7b6a', 'spring'],
    ['orders-lock', 'host-7:1234', 'unknown'],
  ] as const)('%s = %s → %s', (key, value, library) => {
    const v = decodeSnapshot(stringRaw(value, { key, nowMs: PY_MADE_AT + 5000 }));
    expect(v).toMatchObject({ kind: 'token', value, library, holders: [{ owner: value, count: 1 }], waiters: 0 });
  });

  it('a uuid1 is redis-py only near the server clock: far from it, random hex is node-redlock', () => {
    expect(isRecentUuid1Hex(PY_UUID1, PY_MADE_AT)).toBe(true);
    expect(isRecentUuid1Hex(PY_UUID1, PY_MADE_AT + 2 * 366 * 86_400_000)).toBe(false);
    expect(tokenLibrary('k', PY_UUID1, 0)).toBe('node-redlock');
    expect(isRecentUuid1Hex('59df7b8ee63841f19a7e02fc00000001', PY_MADE_AT)).toBe(false); // version 4
  });

  it('the SETNX-then-EXPIRE bug: a token without TTL is plain data with a note, an error only under --kind token', () => {
    const snapshot = stringRaw('aabbccddeeff00112233445566778899', { pttl: -1 });
    expect(decodeSnapshot(snapshot).warnings).toEqual([expect.objectContaining({ code: 'token-without-expiry', severity: 'info' })]);
    expect(decodeSnapshot(snapshot, { kind: 'token' }).warnings).toEqual([expect.objectContaining({ code: 'no-ttl', severity: 'error' })]);
  });

  it('an unknown value is plain data unless it has a TTL and a lock-like name; --kind token reads it anyway', () => {
    const data = stringRaw('{"user":1}', { key: 'session:1' });
    expect(decodeSnapshot(data).kind).toBe('not-a-lock');
    expect(decodeSnapshot(data).warnings[0]!.message).toBe('read as plain data; the same data could be another kind: --kind token');
    expect(decodeSnapshot(data, { kind: 'token' })).toMatchObject({ kind: 'token', library: 'unknown' });
  });

  it('a value too long to read is not a lock', () => {
    expect(decodeSnapshot(raw({ type: 'string', size: 100_000, pttl: -1 }))).toMatchObject({ kind: 'not-a-lock', size: 100_000 });
  });
});

describe('integer strings: semaphore, latch or a hand-written lock', () => {
  it.each([
    ['a Redisson semaphore, no TTL', stringRaw('3', { pttl: -1 }), 'semaphore', ['latch']],
    ['a latch with awaiters', stringRaw('2', { pttl: -1, ...channels({ latch: 1 }) }), 'latch', undefined],
    ['a semaphore with acquirers', stringRaw('0', { pttl: -1, ...channels({ semaphore: 2 }) }), 'semaphore', undefined],
    ['SET lock 1 NX PX', stringRaw('1', { key: 'job-lock' }), 'token', ['semaphore', 'latch']],
    ['a counter with a TTL', stringRaw('41', { key: 'visits' }), 'not-a-lock', ['token', 'semaphore', 'latch']],
  ] as const)('%s', (_name, snapshot, kind, alternatives) => {
    const v = decodeSnapshot(snapshot);
    expect(v.kind).toBe(kind);
    const ambiguous = v.warnings.find((w) => w.code === 'ambiguous-kind');
    expect(ambiguous?.message.split(': ')[1]).toBe(alternatives?.map((k) => `--kind ${k}`).join(' or '));
  });

  it('semaphore: available permits and acquirers; latch: the count and awaiters', () => {
    expect(decodeSnapshot(stringRaw('3', { pttl: -1, ...channels({ semaphore: 2 }) }))).toMatchObject({ available: 3, waiters: 2, holders: [] });
    expect(decodeSnapshot(stringRaw('3', { pttl: -1, ...channels({ latch: 4 }) }))).toMatchObject({ kind: 'latch', count: 3, waiters: 4 });
    expect(decodeSnapshot(stringRaw('3', { pttl: -1 }), { kind: 'latch' })).toMatchObject({ kind: 'latch', count: 3, warnings: [] });
  });

  it('negative permits are explained', () => {
    expect(decodeSnapshot(stringRaw('-2', { pttl: -1, ...channels({ semaphore: 1 }) })).warnings[0]!.code).toBe('negative-permits');
  });
});

describe('expirable semaphore and redis-semaphore', () => {
  const id = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const oldId = Buffer.from('0123456789abcdef0123456789abcdef').toString('hex');

  it('permits hex-encoded, never-expiring and expired ones flagged; old text ids shown as text', () => {
    const v = decodeSnapshot(
      stringRaw('1', {
        pttl: -1,
        permitCount: 3,
        permits: [id, String(NOW + 4000), 'ff00', String(NOW - 2000), oldId, '922337203685477'],
        ...channels({ semaphore: 1 }),
      }),
    );
    expect(v).toMatchObject({ kind: 'expirable-semaphore', available: 1, waiters: 1 });
    expect(v.permits).toEqual([
      { id, expiresInMs: 4000, expired: false },
      { id: 'ff00', expiresInMs: -2000, expired: true },
      { id: '0123456789abcdef0123456789abcdef', expiresInMs: null, expired: false },
    ]);
    expect(v.warnings.map((w) => w.message)).toEqual([
      'permit ff00 expired 2.0 s ago and is still counted as taken: reclaimed at the next acquire or release',
    ]);
  });

  it('redis-semaphore: lockTimeout from the key TTL and the newest score; MultiSemaphore permits group by holder', () => {
    const v = decodeSnapshot(
      raw({
        key: 'semaphore:jobs',
        type: 'zset',
        pttl: 8000, // refreshed 2 s ago with lockTimeout 10 s
        size: 4,
        body: [`${A}_0`, String(NOW - 2000), `${A}_1`, String(NOW - 2000), B, String(NOW - 12_000)],
      }),
    );
    expect(v.kind).toBe('rs-semaphore');
    expect(v.permits!.map((p) => [p.expiresInMs, p.expired])).toEqual([[8000, false], [8000, false], [-2000, true]]);
    expect(v.holders).toEqual([{ owner: A, count: 2 }]);
  });

  it('a zset elsewhere, or with other members, is not a lock', () => {
    expect(decodeSnapshot(raw({ key: 'jobs', type: 'zset', size: 1, body: [A, '1'] })).kind).toBe('not-a-lock');
    expect(decodeSnapshot(raw({ key: 'semaphore:x', type: 'zset', size: 1, body: ['bob', '1'] })).kind).toBe('not-a-lock');
  });
});
