import { describe, expect, it } from 'vitest';
import calculateSlot from 'cluster-key-slot';
import {
  braced, fairQueueKey, fairTimeoutKey, fairWaiterChannel, fencedTokenKey, lockChannel, prefixName, rwChannel, rwTimeoutPrefix, suffixName,
} from '../../src/core/names.js';
import { decodeHolderField, parseRedissonOwner } from '../../src/core/owner.js';

describe('Redisson names (docs/redisson-protocol.md §1.1)', () => {
  it('braces plain names and reuses an existing tag', () => {
    expect(braced('myLock')).toBe('{myLock}');
    expect(prefixName('redisson_lock__channel', '{user1}:lock')).toBe('redisson_lock__channel:{user1}:lock');
    expect(suffixName('rw', 'x')).toBe('{rw}:x');
  });

  it('derives every companion key and channel', () => {
    const h = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:2';
    expect(lockChannel('orders')).toBe('redisson_lock__channel:{orders}');
    expect(fairQueueKey('orders')).toBe('redisson_lock_queue:{orders}');
    expect(fairTimeoutKey('orders')).toBe('redisson_lock_timeout:{orders}');
    expect(fairWaiterChannel('orders', h)).toBe(`redisson_lock__channel:{orders}:${h}`);
    expect(rwChannel('orders')).toBe('redisson_rwlock:{orders}');
    expect(fencedTokenKey('orders')).toBe('redisson_lock_token:{orders}');
    expect(rwTimeoutPrefix('{test}:abc:key', h)).toBe(`{test}:abc:key:${h}:rwlock_timeout`);
  });

  it('keeps every key of one lock in the lock slot (the doc computes myLock -> 12769)', () => {
    const slot = calculateSlot('myLock');
    expect(slot).toBe(12769);
    for (const name of [lockChannel('myLock'), fairQueueKey('myLock'), fairTimeoutKey('myLock'), fencedTokenKey('myLock'), `${rwTimeoutPrefix('myLock', 'x')}:1`]) {
      expect(calculateSlot(name)).toBe(slot);
    }
    expect(calculateSlot(lockChannel('{user1}:lock'))).toBe(8106);
  });
});

describe('owners', () => {
  it('parses <uuid>:<thread>, negative threads and drops :write', () => {
    expect(parseRedissonOwner('6F1C2B8E-1f7a-4c1e-9d8e-0a1b2c3d4e5f:-7:write')).toEqual({ client: '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f', thread: '-7' });
  });
  it('rejects anything else with the expected form', () => {
    expect(() => parseRedissonOwner('alice')).toThrow(/expected <uuid>:<thread>/);
  });
  it('decodes hash fields and tells writers apart', () => {
    expect(decodeHolderField('6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1:write')?.write).toBe(true);
    expect(decodeHolderField('mode')).toBeUndefined();
  });
});
