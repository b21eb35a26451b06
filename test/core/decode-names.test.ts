import { describe, expect, it } from 'vitest';
import { companionOf } from '../../src/core/decode/companions.js';
import { bytesToText, escapeControls, printable } from '../../src/core/decode/escape.js';

describe('companion keys', () => {
  it.each([
    ['redisson_lock_queue:{orders}', 'fair-queue', 'orders'],
    ['redisson_lock_timeout:{orders}', 'fair-deadlines', 'orders'],
    ['redisson_lock_token:{user1}:lock', 'fencing-counter', '{user1}:lock'],
    ['redisson_unlock_latch:{orders}:9f0c1d2e3f405162738495a6b7c8d9e0', 'unlock-latch', 'orders'],
    ['{orders}:11111111-1111-4111-8111-111111111111:7:rwlock_timeout:2', 'read-hold-timeout', 'orders'],
    ['{sem}:timeout', 'permit-timeouts', 'sem'],
  ])('%s is the %s of %s', (key, role, lock) => {
    expect(companionOf(key)).toEqual({ role, lock });
  });

  it('ordinary keys are nobody\'s companion', () => {
    expect(['orders', 'session:timeout', 'redisson_lock__channel:{x}'].map(companionOf)).toEqual([undefined, undefined, undefined]);
  });
});

describe('escaping names for a terminal', () => {
  it('plain names, spaces and UTF-8 print as they are; control characters are escaped in quotes', () => {
    expect(printable('orders:eu-1')).toBe('orders:eu-1');
    expect(printable('zamek łódź')).toBe('zamek łódź');
    expect(printable('a\nb\x1b[2J')).toBe('"a\\nb\\x1b[2J"');
    expect(escapeControls('key "a\tb"')).toBe('key "a\\tb"');
  });

  it('bytes that are not UTF-8 become \\xNN text plus their exact hex', () => {
    expect(bytesToText(Buffer.from('orders'))).toEqual({ text: 'orders' });
    expect(bytesToText(Buffer.from([0x6c, 0x6f, 0xff, 0x00, 0x5c]))).toEqual({ text: 'lo\\xff\\x00\\\\', hex: '6c6fff005c' });
  });
});
