import { describe, expect, it } from 'vitest';
import { collapseIds, LockGrouper, OTHER_GROUP, parseGroupRule } from '../../../src/core/export/groups.js';

describe('lock groups', () => {
  it.each([
    ['orders:17', 'orders:{n}'],
    ['orders:eu:2024:991', 'orders:eu:{n}:{n}'],
    ['job:6f1c2a3b-1d2e-4f5a-8b9c-0a1b2c3d4e5f', 'job:{uuid}'],
    ['cart:5f3a9c2e11d4', 'cart:{id}'],
    ['session-AbCdEfGh12345678xyz', 'session-{id}'],
    ['leader', 'leader'],
  ])('collapses the ids of %s into %s', (name, group) => {
    expect(collapseIds(name)).toBe(group);
  });

  it('takes the first --group rule that matches, then the collapsed name', () => {
    const g = new LockGrouper([parseGroupRule('orders:eu:*=orders-eu'), parseGroupRule('orders:*=orders')]);
    expect([g.groupOf('orders:eu:1'), g.groupOf('orders:us:2'), g.groupOf('cart:3')]).toEqual(['orders-eu', 'orders', 'cart:{n}']);
  });

  it('puts names past the cap in "other", and counts them', () => {
    const g = new LockGrouper([], 2);
    const groups = ['a:1', 'b:1', 'c:1', 'a:2', 'd:9'].map((n) => g.groupOf(n));
    expect(groups).toEqual(['a:{n}', 'b:{n}', OTHER_GROUP, 'a:{n}', OTHER_GROUP]);
    expect([g.size, g.overflowed]).toEqual([2, 2]);
  });

  it('keeps 10,000 locks of one pattern in one group', () => {
    const g = new LockGrouper([]);
    for (let i = 0; i < 10_000; i++) g.groupOf(`lock:${i}`);
    expect([g.size, g.overflowed]).toEqual([1, 0]);
  });

  it('refuses a rule without a name, or named like the overflow group', () => {
    expect(() => parseGroupRule('orders:*')).toThrow(`--group "orders:*": expected <glob>=<group name>, e.g. --group 'orders:*=orders'`);
    expect(() => parseGroupRule('x=other')).toThrow('--group "x=other": "other" is the overflow group; pick another name');
  });
});
