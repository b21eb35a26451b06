import { describe, expect, it } from 'vitest';
import { decodeSnapshot, parseInspectKind } from '../../src/core/decode/index.js';
import { A, B, C, NOW, fairParts, hashRaw, raw } from './decode-fixtures.js';

const codes = (v: { warnings: readonly { code: string }[] }) => v.warnings.map((w) => w.code);

describe('Redisson hash locks', () => {
  it('reentrant: every holder as client + thread with its count, lease left, unlock-channel waiters', () => {
    const v = decodeSnapshot(hashRaw({ [`${A}:1`]: 2 }, { pttl: 4200, channels: { lock: 3, rw: 0, semaphore: 0, latch: 0 } }));
    expect(v).toMatchObject({ key: 'orders', kind: 'reentrant', type: 'hash', ttlMs: 4200, waiters: 3, readAt: NOW, warnings: [] });
    expect(v.holders).toEqual([{ owner: `${A}:1`, client: A, thread: '1', count: 2 }]);
  });

  it('a lock hash without queue keys may be a fair lock nobody waits on: kind stays reentrant, possibleKinds says both', () => {
    const bare = decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }));
    expect(bare).toMatchObject({ kind: 'reentrant', possibleKinds: ['reentrant', 'fair'], warnings: [] });
    const queued = decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }, fairParts([[`${B}:1`, 35_000]])));
    expect(queued.kind).toBe('fair');
    expect(queued).not.toHaveProperty('possibleKinds');
    expect(decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }, { counter: '3' }))).not.toHaveProperty('possibleKinds');
    const asked = decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }), { kind: 'fair' });
    expect(asked.kind).toBe('fair');
    expect(asked).not.toHaveProperty('possibleKinds');
  });

  it('data that fits several string kinds lists them all in possibleKinds, the one shown first', () => {
    expect(decodeSnapshot(raw({ type: 'string', body: ['3'], pttl: -1 })).possibleKinds).toEqual(['semaphore', 'latch']);
  });

  it("node-redisson's <uuid>:<clientId uuid> fields are holders too", () => {
    const v = decodeSnapshot(hashRaw({ [`${A}:${B}`]: 1 }));
    expect(v.kind).toBe('reentrant');
    expect(v.holders[0]).toMatchObject({ client: A, thread: B, count: 1 });
  });

  it('fenced when the token counter exists, with the last token; a free fenced lock still shows it', () => {
    expect(decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }, { counter: '17' }))).toMatchObject({ kind: 'fenced', token: 17 });
    const free = decodeSnapshot(raw({ counter: '17' }));
    expect(free).toMatchObject({ kind: 'fenced', type: 'none', holders: [], token: 17 });
  });

  it('no TTL is an error for a lock; a huge hold count is a warning', () => {
    const v = decodeSnapshot(hashRaw({ [`${A}:1`]: 5000 }, { pttl: -1 }));
    expect(v.warnings[0]).toMatchObject({ code: 'no-ttl', severity: 'error' });
    expect(v.warnings[0]!.message).toMatch(/will never expire/);
    expect(codes(v)).toContain('huge-hold-count');
  });

  it('a hash of other data is not a lock and says its size', () => {
    const v = decodeSnapshot(hashRaw({ name: 'x', age: 3 }));
    expect(v).toMatchObject({ kind: 'not-a-lock', type: 'hash', size: 2, holders: [] });
  });

  it('a huge hash comes as a sample: not a lock, with its real size', () => {
    const v = decodeSnapshot(hashRaw({ f1: 'a', f2: 'b' }, { size: 100_000, pttl: -1 }));
    expect(v).toMatchObject({ kind: 'not-a-lock', size: 100_000, warnings: [] });
  });

  it('a lock hash too big to read whole says its holders are a sample', () => {
    const v = decodeSnapshot(hashRaw({ [`${A}:1`]: 1, [`${A}:2`]: 1 }, { size: 20_000 }));
    expect(v).toMatchObject({ kind: 'reentrant', holders: [{ thread: '1' }, { thread: '2' }] });
    expect(v.warnings).toEqual([expect.objectContaining({ code: 'truncated', message: 'a hash of 20000 fields: showing a sample of 2' })]);
  });
});

describe('fair lock queue', () => {
  const holder = { [`${A}:1`]: 1 };

  it('lists waiters in order with deadlines, expected waits and their own channel subscribers', () => {
    const v = decodeSnapshot(hashRaw(holder, { pttl: 30_000, ...fairParts([[`${B}:1`, 35_000], [`${C}:2`, 40_000]]) }));
    expect(v.kind).toBe('fair');
    expect(v.queue).toEqual([
      { owner: `${B}:1`, position: 0, deadlineInMs: 35_000, expectedWaitMs: 30_000, subscribers: 1 },
      { owner: `${C}:2`, position: 1, deadlineInMs: 40_000, expectedWaitMs: 35_000, subscribers: 1 },
    ]);
    expect(v.waiters).toBe(2);
    expect(v.warnings).toEqual([]);
  });

  it('overdue head entries are purged at the next attempt; overdue ones behind a live waiter wait for the head', () => {
    const v = decodeSnapshot(hashRaw(holder, fairParts([[`${B}:1`, -1100], [`${C}:1`, 5000], [`${A}:9`, -300]])));
    const overdue = v.warnings.filter((w) => w.code === 'overdue-waiter').map((w) => w.message);
    expect(overdue).toEqual([
      `waiter ${B}:1 (next in line) overdue 1.1 s: purged at the next attempt`,
      `waiter ${A}:9 (#3 in line) overdue 300 ms: purged once it reaches the head`,
    ]);
  });

  it('expected wait: a dead waiter ahead costs nothing, a live one its deadline, an unscored one forever', () => {
    const v = decodeSnapshot(
      hashRaw(holder, { pttl: 20_000, ...fairParts([[`${B}:1`, -500], [`${C}:1`, 30_000], [`${A}:8`, -100], [`${A}:9`, 40_000], [`${B}:2`, null], [`${B}:3`, 50_000]]) }),
    );
    expect(v.queue!.map((q) => q.expectedWaitMs)).toEqual([20_000, 20_000, 30_000, 30_000, 40_000, undefined]);
  });

  it('a queue entry without a deadline is an error, a deadline without a queue entry a warning', () => {
    const parts = fairParts([[`${B}:1`, null], [`${C}:1`, 5000]]);
    const v = decodeSnapshot(
      hashRaw(holder, { ...parts, deadlines: [...parts.deadlines!, `${A}:7`, String(NOW + 9000)], deadlineCount: 2 }),
    );
    expect(v.queue![0]!.deadlineInMs).toBeNull();
    expect(v.queue![1]!.expectedWaitMs).toBeUndefined();
    expect(v.warnings.map((w) => [w.code, w.severity])).toEqual([
      ['queue-entry-without-deadline', 'error'],
      ['deadline-without-queue-entry', 'warning'],
    ]);
  });

  it('a free lock with waiters is still a fair lock (exit 0), and says who takes it next', () => {
    const v = decodeSnapshot(raw(fairParts([[`${B}:1`, 5000]])));
    expect(v).toMatchObject({ kind: 'fair', type: 'none', holders: [] });
    expect(v.queue![0]!.expectedWaitMs).toBe(0);
    expect(v.warnings.map((w) => w.message)).toEqual([`free: ${B}:1 takes it at its next attempt`]);
  });

  it('a dead queue of 8 gives five lines and a count, but keeps every entry in queue[]', () => {
    const entries = Array.from({ length: 8 }, (_, i) => [`${A}:${i}`, -1000] as [string, number]);
    const v = decodeSnapshot(hashRaw(holder, fairParts(entries)));
    expect(v.queue).toHaveLength(8);
    expect(v.warnings.map((w) => w.message).slice(5)).toEqual(['... and 3 more like this']);
  });

  it('a queue longer than the cap says how much is shown', () => {
    const v = decodeSnapshot(hashRaw(holder, { ...fairParts([[`${B}:1`, 5000]]), queueLength: 20_000 }));
    expect(v.warnings).toContainEqual(expect.objectContaining({ code: 'truncated', message: 'showing the first 1 of 20000 waiters' }));
  });
});

describe('missing keys, companions and --kind', () => {
  it('a missing key; Redisson waiters still subscribed to it are reported', () => {
    expect(decodeSnapshot(raw())).toMatchObject({ kind: 'missing', type: 'none', ttlMs: -2, holders: [], waiters: 0, warnings: [] });
    const v = decodeSnapshot(raw({ channels: { lock: 2, rw: 0, semaphore: 0, latch: 0 } }));
    expect(v).toMatchObject({ kind: 'missing', waiters: 2 });
    expect(codes(v)).toEqual(['waiters-without-lock']);
  });

  it('a companion key says which lock it belongs to', () => {
    const v = decodeSnapshot(raw({ key: 'redisson_lock_queue:{orders}', type: 'list', size: 3 }));
    expect(v).toMatchObject({ kind: 'not-a-lock', size: 3 });
    expect(v.warnings[0]!.message).toBe('this is the wait queue of fair lock "orders": inspect "orders" to see the lock');
  });

  it('--kind picks a reading that fits, and says so when it does not', () => {
    expect(decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }), { kind: 'fair' })).toMatchObject({ kind: 'fair', queue: [] });
    const v = decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }), { kind: 'rw' });
    expect(v.kind).toBe('reentrant');
    expect(v.warnings[0]).toMatchObject({ code: 'kind-mismatch', message: 'a hash cannot be read as rw: shown as reentrant' });
  });

  it('--kind takes inspect kinds and our lock kinds; anything else is a usage error', () => {
    expect(['fair', 'read', 'write', 'spin', 'redlock', 'latch'].map(parseInspectKind)).toEqual(['fair', 'rw', 'rw', 'reentrant', 'token', 'latch']);
    expect(() => parseInspectKind('mutex')).toThrow(/unknown kind "mutex" \(Did you mean token\?\): use one of reentrant, fair/);
    expect(() => parseInspectKind('zzz')).toThrow(/^unknown kind "zzz": use one of reentrant, fair/);
  });

  it('companion keys of another Cluster slot are reported as not read', () => {
    expect(codes(decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }, { companionsRead: false })))).toEqual(['companions-not-read']);
  });
});
