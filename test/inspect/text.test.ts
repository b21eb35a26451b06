import { describe, expect, it } from 'vitest';
import { decodeSnapshot } from '../../src/core/decode/index.js';
import { formatLockView } from '../../src/core/inspect-text.js';
import type { LockView } from '../../src/core/lock-view.js';
import { A, B, NOW, fairParts, hashRaw, raw, stringRaw } from '../core/decode-fixtures.js';

// formatLockView is what inspect prints and what the live view and ls reuse.

describe('formatLockView', () => {
  it('read-write lock: mode in the header, a readers table, a zombie marked, warnings with severity', () => {
    const view = decodeSnapshot(
      hashRaw({ mode: 'read', [`${A}:1`]: 2, [`${B}:7`]: 1 }, {
        pttl: 9000,
        readers: [{ holder: `${A}:1`, count: 2, keys: [1, 4000, 2, 9000] }, { holder: `${B}:7`, count: 1, keys: [] }],
      }),
    );
    expect(formatLockView(view)).toEqual([
      'orders  Redisson read-write lock, read mode, expires in 9.0 s',
      `  readers   reader                                         holds  hold timeouts`,
      `            ${A} thread 1  2      4.0 s, 9.0 s`,
      `            ${B} thread 7  1      none left (zombie)`,
      '  waiters   0 subscribed to its channel',
      `  warning   reader ${B}:7 (1 hold) has no timeout keys left: it is dead but still counted, and keeps writers out until the hash expires in 9.0 s`,
    ]);
  });

  it('a Redisson lock hash with no queue to tell reentrant from fair says so in its header', () => {
    expect(formatLockView(decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }, { pttl: 5000 })))[0]).toBe(
      'orders  Redisson lock (reentrant or fair: no queue to tell), expires in 5.0 s',
    );
    expect(formatLockView(decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }, { pttl: 5000 }), { kind: 'reentrant' }))[0]).toBe('orders  Redisson lock, expires in 5.0 s');
  });

  it('counts down by the time since the snapshot (for live views) and clips long tables', () => {
    const view = decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }, { pttl: 5000, ...fairParts([[`${B}:1`, 8000], [`${B}:2`, 9000], [`${B}:3`, 10_000]]) }));
    const lines = formatLockView(view, { elapsedMs: 1500, maxRows: 2 });
    expect(lines[0]).toBe('orders  Redisson fair lock, expires in 3.5 s');
    expect(lines[3]).toContain('in 6.5 s');
    expect(lines[5]).toBe('            ... and 1 more (--json lists all)');
  });

  it('on a terminal, queue and reader tables fit its width by shortening who waits or reads, the thread kept', () => {
    const fair = decodeSnapshot(hashRaw({ [`${A}:1`]: 1 }, { pttl: 5000, ...fairParts([[`${B}:1`, 8000], [`${B}:2`, 9000]]) }));
    const rw = decodeSnapshot(hashRaw({ mode: 'read', [`${A}:1`]: 2 }, { pttl: 9000, readers: [{ holder: `${A}:1`, count: 2, keys: [1, 4000, 2, 9000] }] }));
    for (const view of [fair, rw]) {
      const piped = formatLockView(view);
      expect(Math.max(...piped.map((l) => l.length)), 'piped: nothing cut').toBeGreaterThan(70);
      for (const width of [70, 80, 100]) {
        // The table rows (prose rows such as the holder are inspect's to wrap).
        const lines = formatLockView(view, { width }).filter((l) => /^ {2}(queue|readers| {8}) /.test(l));
        expect(lines.length).toBeGreaterThanOrEqual(2);
        for (const line of lines) expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
        const cut = lines.filter((l) => /…\S* thread [12] /.test(l));
        // Cut only where the piped table was wider than the terminal.
        expect(cut.length > 0, `${width}: ${lines.join('\n')}`).toBe(Math.max(...piped.map((l) => l.length)) > width);
      }
    }
  });

  it('token lock with its library; a TTL-less one is data that could be one; semaphore and not-a-lock', () => {
    expect(formatLockView(decodeSnapshot(stringRaw('aabbccddeeff00112233445566778899', { pttl: 4000 })))).toEqual([
      'orders  token lock (node-redlock), expires in 4.0 s',
      '  held by   aabbccddeeff00112233445566778899',
    ]);
    expect(formatLockView(decodeSnapshot(stringRaw('aabbccddeeff00112233445566778899', { pttl: -1 })))).toEqual([
      'orders  not a lock: a string of 32 bytes, no TTL',
      '  note      read as plain data, since every token library sets a TTL; it could be a token lock set without expiry (the value has the form of a node-redlock token): --kind token reads it as one',
    ]);
    expect(formatLockView(decodeSnapshot(stringRaw('aabbccddeeff00112233445566778899', { pttl: -1 }), { kind: 'token' }))).toEqual([
      'orders  token lock (node-redlock), no TTL',
      '  held by   aabbccddeeff00112233445566778899',
      '  error     no TTL: will never expire; if its holder dies it stays locked until someone deletes it',
    ]);
    expect(formatLockView(decodeSnapshot(stringRaw('3', { pttl: -1, channels: { lock: 0, rw: 0, semaphore: 2, latch: 0 } })))).toEqual([
      'orders  Redisson semaphore, no TTL',
      '  permits   3 available',
      '  waiters   2 subscribed to its channel',
    ]);
    expect(formatLockView(decodeSnapshot(raw({ type: 'set', size: 12, pttl: -1 })))[0]).toBe('orders  not a lock: a set of 12 members, no TTL');
  });

  it('escapes control characters in names and values; binary keys print quoted as escaped', () => {
    const view = decodeSnapshot(stringRaw('x\x1b[31m', { key: 'lock\n1', nowMs: NOW }), { kind: 'token' });
    expect(formatLockView(view).slice(0, 2)).toEqual(['"lock\\n1"  token lock (unknown format), expires in 10.0 s', '  held by   "x\\x1b[31m"']);
    const binary: LockView = { ...decodeSnapshot(raw()), key: 'l\\xff', keyHex: '6cff' };
    expect(formatLockView(binary)).toEqual(['"l\\xff"  does not exist']);
  });

  it('replicas: in sync or how far behind', () => {
    const view: LockView = {
      ...decodeSnapshot(hashRaw({ [`${A}:1`]: 1 })),
      replicas: [{ replica: '10.0.0.2:6379', offset: 100, lagBytes: 0 }, { replica: '10.0.0.3:6379', offset: 40, lagBytes: 60 }],
    };
    expect(formatLockView(view)).toContain('  replicas  10.0.0.2:6379 in sync, 10.0.0.3:6379 60 bytes behind');
  });
});
