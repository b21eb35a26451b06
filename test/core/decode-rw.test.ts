import { describe, expect, it } from 'vitest';
import { decodeSnapshot } from '../../src/core/decode/index.js';
import { A, B, hashRaw } from './decode-fixtures.js';

const key = (holder: string, n: number) => `{orders}:${holder}:rwlock_timeout:${n}`;

describe('read-write locks', () => {
  it('mode, readers with counts and every timeout key with its TTL; holders lists them all', () => {
    const v = decodeSnapshot(
      hashRaw(
        { mode: 'read', [`${A}:1`]: 2, [`${B}:4`]: 1 },
        {
          pttl: 20_000,
          readers: [
            { holder: `${A}:1`, count: 2, keys: [1, 9000, 2, 20_000] },
            { holder: `${B}:4`, count: 1, keys: [1, 5000] },
          ],
          channels: { lock: 0, rw: 2, semaphore: 0, latch: 0 },
        },
      ),
    );
    expect(v).toMatchObject({ kind: 'rw', mode: 'read', waiters: 2, orphanTimeoutKeys: [], warnings: [] });
    expect(v.holders.map((h) => h.owner)).toEqual([`${A}:1`, `${B}:4`]);
    expect(v.readers).toEqual([
      {
        owner: `${A}:1`, client: A, thread: '1', count: 2, zombie: false,
        timeoutKeys: [{ key: key(`${A}:1`, 1), ttlMs: 9000 }, { key: key(`${A}:1`, 2), ttlMs: 20_000 }],
      },
      { owner: `${B}:4`, client: B, thread: '4', count: 1, zombie: false, timeoutKeys: [{ key: key(`${B}:4`, 1), ttlMs: 5000 }] },
    ]);
  });

  it('the writer is a holder with write: true and not a reader; its own read holds are', () => {
    const v = decodeSnapshot(
      hashRaw({ mode: 'write', [`${A}:1:write`]: 1, [`${A}:1`]: 1 }, { readers: [{ holder: `${A}:1`, count: 1, keys: [1, 8000] }] }),
    );
    expect(v.holders[0]).toEqual({ owner: `${A}:1:write`, client: A, thread: '1', count: 1, write: true });
    expect(v.readers!.map((r) => r.owner)).toEqual([`${A}:1`]);
  });

  it('a reader whose timeout keys are all gone is a zombie', () => {
    const v = decodeSnapshot(hashRaw({ mode: 'read', [`${A}:1`]: 2 }, { pttl: 25_000, readers: [{ holder: `${A}:1`, count: 2, keys: [] }] }));
    expect(v.readers![0]).toMatchObject({ zombie: true, timeoutKeys: [] });
    expect(v.warnings.map((w) => w.message)).toEqual([
      `reader ${A}:1 (2 holds) has no timeout keys left: it is dead but still counted, and keeps writers out until the hash expires in 25.0 s`,
    ]);
  });

  it('timeout keys past the count, or of a writer with no reader field, are orphans', () => {
    const v = decodeSnapshot(
      hashRaw(
        { mode: 'write', [`${A}:1:write`]: 1, [`${B}:2`]: 1 },
        {
          readers: [
            { holder: `${A}:1`, count: 0, keys: [1, 3000] },
            { holder: `${B}:2`, count: 1, keys: [1, 9000, 2, 4000] },
          ],
        },
      ),
    );
    expect(v.orphanTimeoutKeys).toEqual([
      { key: key(`${B}:2`, 2), ttlMs: 4000 },
      { key: key(`${A}:1`, 1), ttlMs: 3000 },
    ]);
    expect(v.warnings.filter((w) => w.code === 'orphan-timeout-key')).toHaveLength(2);
    expect(v.warnings[0]!.message).toBe(`timeout key ${key(`${B}:2`, 2)} (4.0 s left) belongs to no counted read hold`);
  });

  it.each([
    [5000, 25_000, 'the hash expires in 5.0 s but a read hold lasts 25.0 s: readers lose the lock early'],
    [30_000, 5000, 'the hash lives 30.0 s but the longest read hold ends in 5.0 s: writers wait for nobody'],
  ])('read mode: hash TTL %i vs longest hold %i disagree', (pttl, hold, message) => {
    const v = decodeSnapshot(hashRaw({ mode: 'read', [`${A}:1`]: 1 }, { pttl, readers: [{ holder: `${A}:1`, count: 1, keys: [1, hold] }] }));
    expect(v.warnings).toEqual([{ code: 'ttl-disagreement', severity: 'warning', message }]);
  });

  it('within a second, or in write mode, TTLs do not disagree', () => {
    const read = decodeSnapshot(hashRaw({ mode: 'read', [`${A}:1`]: 1 }, { pttl: 9000, readers: [{ holder: `${A}:1`, count: 1, keys: [1, 9800] }] }));
    const write = decodeSnapshot(
      hashRaw({ mode: 'write', [`${A}:1:write`]: 1, [`${A}:1`]: 1 }, { pttl: 30_000, readers: [{ holder: `${A}:1`, count: 1, keys: [1, 2000] }] }),
    );
    expect([read.warnings, write.warnings]).toEqual([[], []]);
  });

  it('a mode field with other data is not a lock', () => {
    expect(decodeSnapshot(hashRaw({ mode: 'dark', theme: 'x' })).kind).toBe('not-a-lock');
    expect(decodeSnapshot(hashRaw({ mode: 'read', colour: 'red' })).kind).toBe('not-a-lock');
  });
});
