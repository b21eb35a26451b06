import { describe, expect, it } from 'vitest';
import { kindForKey } from '../../src/locks/family.js';
import type { LockKind } from '../../src/locks/types.js';
import { A, B, hashRaw, raw, stringRaw } from '../core/decode-fixtures.js';

// The decision every lock command makes before writing (src/locks/family.ts), as a pure table:
// the key's data as inspect reads it, the --kind asked (or none), and the kind acted as, or the
// refusal. The same snapshots go through real servers in test/commands/safety-rails.test.ts.

const holder = `${A}:1`;
const other = `${B}:7`;
const TOKEN = '0123456789abcdef0123456789abcdef';

const plainLock = hashRaw({ [holder]: 1 });
const fencedLock = hashRaw({ [holder]: 1 }, { counter: '4' });
const fairLock = hashRaw({ [holder]: 1 }, { queueLength: 1, queue: [other], deadlineCount: 1, deadlines: [other, '1'] });
const readLock = hashRaw({ mode: 'read', [holder]: 1, [other]: 2 });
const writeLock = hashRaw({ mode: 'write', [`${holder}:write`]: 1, [holder]: 1 });
const tokenLock = stringRaw(TOKEN, { pttl: 5000 });
const appHash = hashRaw({ name: 'bob' }, { pttl: -1 });
const malformedRead = hashRaw({ mode: 'read', [other]: '1.5' });
const appString = stringRaw('hello', { pttl: -1 });
const appStringWithTtl = stringRaw('hello', { pttl: 5000 });
const semaphore = stringRaw('5', { pttl: -1 });
const missing = raw();
const fairQueueOnly = raw({ queueLength: 1, queue: [other], deadlineCount: 1, deadlines: [other, '1'] });
const fencedCounterOnly = raw({ counter: '9' });

type Case = [string, ReturnType<typeof raw>, LockKind | undefined, string | undefined, LockKind | undefined | RegExp];

const CASES: Case[] = [
  ['plain lock, no --kind', plainLock, undefined, holder, 'reentrant'],
  ['plain lock as spin', plainLock, 'spin', holder, 'spin'],
  ['plain lock as fair (a fair lock nobody waits on)', plainLock, 'fair', holder, 'fair'],
  ['plain lock as token', plainLock, 'token', undefined, /is a Redisson lock \(reentrant\), not a token lock: use --kind reentrant/],
  ['plain lock as read', plainLock, 'read', holder, /not a read lock/],
  ['fenced lock, no --kind', fencedLock, undefined, holder, 'fenced'],
  ['fenced lock as reentrant', fencedLock, 'reentrant', holder, 'reentrant'],
  ['fenced lock as fair', fencedLock, 'fair', holder, /is a fenced lock, not a fair lock/],
  ['fair lock, no --kind', fairLock, undefined, holder, 'fair'],
  ['fair lock as reentrant', fairLock, 'reentrant', holder, /is a fair lock, not a reentrant lock: use --kind fair/],
  ['read lock, no --kind, a reader', readLock, undefined, holder, 'read'],
  ['read lock, no --kind, nobody named', readLock, undefined, undefined, 'read'],
  ['write lock, no --kind, the writer', writeLock, undefined, holder, 'write'],
  ['write lock as read', writeLock, 'read', holder, 'read'],
  ['read lock as reentrant', readLock, 'reentrant', holder, /is a read-write lock, not a reentrant lock: use --kind read or --kind write/],
  ['token lock, no --kind', tokenLock, undefined, TOKEN, 'token'],
  ['token lock as redlock', tokenLock, 'redlock', TOKEN, 'redlock'],
  ['token lock as reentrant', tokenLock, 'reentrant', holder, /is a token lock, not a reentrant lock: use --kind token/],
  ['application hash', appHash, undefined, undefined, /"orders" holds a hash that is not a lock: nothing was changed \(see redlock-cli inspect orders\)/],
  ['application hash as reentrant', appHash, 'reentrant', holder, /holds a hash that is not a lock/],
  ['malformed read hash as read', malformedRead, 'read', holder, /holds a hash that is not a lock/],
  ['string without TTL as token', appString, 'token', 'hello', /holds a string that is not a lock/],
  ['string with a TTL as token (asked for)', appStringWithTtl, 'token', 'hello', 'token'],
  ['string with a TTL, no --kind', appStringWithTtl, undefined, 'hello', /holds a string that is not a lock/],
  ['integer without TTL (a semaphore)', semaphore, 'token', '5', /is a semaphore, not a token lock: see redlock-cli inspect orders/],
  ['missing key, no --kind', missing, undefined, undefined, undefined],
  ['missing key as fair', missing, 'fair', holder, 'fair'],
  ['only a fair queue, no --kind (its head is woken)', fairQueueOnly, undefined, undefined, 'fair'],
  ['only a fair queue as reentrant', fairQueueOnly, 'reentrant', holder, /is a fair lock/],
  ['only a fencing counter as token (a free name)', fencedCounterOnly, 'token', TOKEN, 'token'],
];

describe('kindForKey', () => {
  it.each(CASES)('%s', (_name, snapshot, kind, owner, expected) => {
    const decide = () => kindForKey(snapshot, { kind, owner });
    if (expected instanceof RegExp) {
      expect(decide).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringMatching(expected) }));
    } else {
      expect(decide()).toBe(expected);
    }
  });

  it('quotes a key with control characters in the refusal, and its inspect hint for a shell', () => {
    expect(() => kindForKey({ ...appHash, key: 'a\nb' }, {})).toThrow('"a\\nb" holds a hash that is not a lock: nothing was changed (see redlock-cli inspect $\'a\\x0ab\')');
  });
});
