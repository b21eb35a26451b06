import { describe, expect, it } from 'vitest';
import { companionOf } from '../../src/core/decode/companions.js';
import { decodeSnapshot } from '../../src/core/decode/index.js';
import { noExpiryByDesignNote } from '../../src/core/doctor-no-expiry.js';
import { raw, stringRaw } from './decode-fixtures.js';

// python-redis-lock v4.0.1 (src/redis_lock/__init__.py): `lock:<name>` holding
// b64encode(urandom(18)), 24 characters; no TTL unless expire= is given (docs/lock-formats.md).

const ID = 'Zm9vYmFyYmF6cXV4MTIzNDU2';

describe('python-redis-lock in the decoder', () => {
  it('without TTL (its default): a token lock of python-redis-lock with a note on the risk, no error', () => {
    const view = decodeSnapshot(stringRaw(ID, { key: 'lock:report', pttl: -1 }));
    expect(view).toMatchObject({
      kind: 'token',
      library: 'python-redis-lock',
      value: ID,
      holders: [{ owner: ID, count: 1 }],
      ttlMs: -1,
    });
    expect(view.warnings.map((w) => [w.code, w.severity])).toEqual([['no-ttl-by-design', 'info']]);
    expect(view.warnings[0]!.message).toMatch(/^no TTL, python-redis-lock's default .*force-unlocks it/);
  });

  it('with expire=: a token lock of python-redis-lock and nothing to say', () => {
    const view = decodeSnapshot(stringRaw(ID, { key: 'lock:report', pttl: 42_000 }));
    expect(view).toMatchObject({ kind: 'token', library: 'python-redis-lock', ttlMs: 42_000, warnings: [] });
  });

  it('the key prefix or the id form alone is not enough without TTL (issue 24)', () => {
    for (const [key, value] of [
      ['lock:report', 'not-an-id'],
      ['lock:report', `${ID.slice(0, 22)}==`],
      ['cfg:nonce', ID],
      ['lock:', ID],
    ] as const) {
      expect(decodeSnapshot(stringRaw(value, { key, pttl: -1 })).kind, `${key} ${value}`).toBe('not-a-lock');
    }
  });

  it('its wake-up list is a companion of the lock; doctor notes its locks without TTL once', () => {
    expect(companionOf('lock-signal:report')).toEqual({ role: 'wake-list', lock: 'lock:report' });
    const list = decodeSnapshot(raw({ key: 'lock-signal:report', type: 'list', pttl: 900, size: 1 }));
    expect(list.kind).toBe('not-a-lock');
    expect(list.warnings.map((w) => w.message)).toEqual([
      'this is the wake-up list (its waiters\' BLPOP) of python-redis-lock "lock:report": inspect "lock:report" to see the lock',
    ]);
    const views = ['lock:a', 'lock:b'].map((key) => decodeSnapshot(stringRaw(ID, { key, pttl: -1 })));
    expect(noExpiryByDesignNote(views)).toMatch(
      /^2 python-redis-lock locks have no TTL, its default \(lock:a, lock:b\): normal while the holder runs/,
    );
    expect(noExpiryByDesignNote([decodeSnapshot(stringRaw(ID, { key: 'lock:a', pttl: 5000 }))])).toBeUndefined();
  });
});
