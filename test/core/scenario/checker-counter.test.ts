import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../../src/core/scenario/checker.js';
import type { History } from '../../../src/core/scenario/history.js';
import { history } from './history-builder.js';

const check = (h: History) => checkHistory(h, { starvationMs: 10_000 }).violations;

describe('lost-update', () => {
  it('names the clients whose increments overlapped and their window', () => {
    const h = history('A', 'B', 'C')
      .ok('C', 'incr', 0, 50, { read: 0, value: 1 })
      .ok('A', 'incr', 100, 300, { read: 1, value: 2 })
      .ok('B', 'incr', 200, 400, { read: 1, value: 2 })
      .end(500, 2).build();
    expect(check(h)).toEqual([
      {
        kind: 'lost-update',
        clients: ['A', 'B'],
        from: 100,
        to: 400,
        message: "the counter ended at 2 after 3 accepted increments (1 lost): A's and B's increments overlapped between 0.10 s and 0.40 s",
      },
    ]);
  });

  it('sequential increments that all landed are safe', () => {
    const h = history('A', 'B').ok('A', 'incr', 0, 100).ok('B', 'incr', 100, 200).ok('A', 'incr', 200, 300).end(400, 3).build();
    expect(check(h)).toEqual([]);
  });

  it('overlapping increments that both landed (the counter is right) are safe', () => {
    const h = history('A', 'B').ok('A', 'incr', 0, 100).ok('B', 'incr', 50, 150).end(200, 2).build();
    expect(check(h)).toEqual([]);
  });

  it('increments the resource rejected, failed or never finished do not count', () => {
    const h = history('A', 'B', 'C')
      .ok('A', 'incr', 0, 100, { read: 0, value: 1, accepted: true })
      .ok('B', 'incr', 50, 150, { read: 0, value: 1, accepted: false })
      .fail('C', 'incr', 60, 70).open('C', 'incr', 80)
      .end(200, 1).build();
    expect(check(h)).toEqual([]);
  });

  it('overlapping increments of one client are not culprits', () => {
    const h = history('A', 'B').ok('A', 'incr', 0, 100).ok('A', 'incr', 50, 150).ok('B', 'incr', 200, 300).end(400, 2).build();
    expect(check(h).map((v) => [v.clients, v.from, v.to, v.message])).toEqual([
      [['A', 'B'], 0, 400, 'the counter ended at 2 after 3 accepted increments (1 lost), though no two increments overlapped'],
    ]);
  });

  it('no end event, no counter to check', () => {
    const h = history('A', 'B').ok('A', 'incr', 0, 100).ok('B', 'incr', 50, 150).build();
    expect(check(h)).toEqual([]);
  });
});
