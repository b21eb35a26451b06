import { describe, expect, it } from 'vitest';
import { A, at, B, catalogued, lua, outcomes, rows } from './monitor-stream.js';

// python-redis-lock v4.0.1 (src/redis_lock/__init__.py) as MONITOR shows it: acquire is a plain
// `SET lock:<name> <id> NX [EX s]`, waiters BLPOP `lock-signal:<name>`, and release, extend and
// reset() are scripts its redis-py client sends by digest once loaded. A trace that starts after
// the load sees only the digests: the catalogue names them (docs/trace-digests.md).

const UNLOCK = '90da91872223f85eb1376a17e3c4df21ace8c54b';
const EXTEND = 'fed16109024d968d9496e4140fe1355bac05ebff';
const RESET = 'afbc8014508f92e446b56567e8ba600e811c1bd5';
const ID_A = 'c2lnbmFsLXdha2VzLWl0LUFB';
const ID_B = 'QkJCQkJCQkJCQkJCQkJCQkJC';

describe('trace decodes python-redis-lock', () => {
  it('its release, extend and reset scripts are in the catalogue with their intent', () => {
    expect(catalogued([UNLOCK, EXTEND, RESET])).toMatchObject(
      ['release', 'renew', 'force'].map((intent) => ({ library: 'python-redis-lock', intent, last: 'v4.0.1' })),
    );
  });

  it('acquire without expiry, a refused waiter, release that wakes it, its acquire with expire=, extend, reset()', () => {
    const events = outcomes([
      at(1, A, 'SET', 'lock:report', ID_A, 'NX'),
      at(2, B, 'SET', 'lock:report', ID_B, 'NX', 'EX', '60'),
      at(3, B, 'BLPOP', 'lock-signal:report', '60'),
      at(4, A, 'EVALSHA', UNLOCK, '2', 'lock:report', 'lock-signal:report', ID_A, '1000'),
      lua(4, 'get', 'lock:report'),
      lua(4, 'del', 'lock-signal:report'),
      lua(4, 'lpush', 'lock-signal:report', '1'),
      lua(4, 'pexpire', 'lock-signal:report', '1000'),
      lua(4, 'del', 'lock:report'),
      at(5, B, 'SET', 'lock:report', ID_B, 'NX', 'EX', '60'),
      at(6, B, 'EVALSHA', EXTEND, '2', 'lock:report', 'lock-signal:report', ID_B, '60'),
      lua(6, 'get', 'lock:report'),
      lua(6, 'ttl', 'lock:report'),
      lua(6, 'expire', 'lock:report', '60'),
      at(7, A, 'EVALSHA', RESET, '2', 'lock:report', 'lock-signal:report', ID_A, '1000'),
      lua(7, 'del', 'lock-signal:report'),
      lua(7, 'lpush', 'lock-signal:report', '1'),
      lua(7, 'pexpire', 'lock-signal:report', '1000'),
      lua(7, 'del', 'lock:report'),
    ]);
    expect(rows(events)).toEqual([
      ['acquired', 'lock:report', ID_A, 1],
      ['refused', 'lock:report', ID_B, 2],
      ['released', 'lock:report', ID_A, 4],
      ['acquired', 'lock:report', ID_B, 5],
      ['renewed', 'lock:report', ID_B, 6],
      ['force-unlocked', 'lock:report', ID_B, 7],
    ]);
    expect(events[0]).not.toHaveProperty('leaseMs');
    expect(events[3]).toMatchObject({ leaseMs: 60_000 });
    expect(events[4]).toMatchObject({ leaseMs: 60_000 });
    // The wake-up list is the lock's bookkeeping, never a lock of its own.
    expect(events.some((e) => e.lock === 'lock-signal:report')).toBe(false);
  });
});
