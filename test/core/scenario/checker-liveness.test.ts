import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../../src/core/scenario/checker.js';
import type { History } from '../../../src/core/scenario/history.js';
import { history } from './history-builder.js';

const check = (h: History, starvationMs = 1000) => checkHistory(h, { starvationMs }).violations;
const windows = (h: History, starvationMs = 1000) => check(h, starvationMs).map((v) => [v.kind, v.clients, v.from, v.to]);

describe('starvation', () => {
  it('a writer waiting past the bound while readers keep taking the read lock, holders in order', () => {
    const h = history('R1', 'R2', 'W')
      .hold('R1', 0, 1500, { shared: true })
      .open('W', 'acquire', 100)
      .hold('R2', 1200, 2800, { shared: true })
      .end(3000).build();
    expect(check(h)).toEqual([
      {
        kind: 'starvation',
        clients: ['W', 'R1', 'R2'],
        from: 100,
        to: 3000,
        message: 'W waited 2.9 s for the lock from 0.10 s and was still waiting at the end (bound 1.0 s) while R1 and R2 held it',
      },
    ]);
  });

  it('another client acquiring during the part beyond the bound counts, even if the waiter finally gets it', () => {
    const h = history('A', 'B').open('B', 'acquire', 0).hold('A', 1500, 1600).end(3000).build();
    const h2 = history('A', 'B').ok('B', 'acquire', 0, 2000).hold('A', 1500, 1600).end(3000).build();
    expect(windows(h)).toEqual([['starvation', ['B', 'A'], 0, 3000]]);
    expect(check(h2)[0]?.message).toBe('B waited 2.0 s for the lock from 0.00 s and got it at 2.00 s (bound 1.0 s) while A held it');
  });

  it('a paused holder is alive: waiting on it is starvation', () => {
    const h = history('A', 'B').ok('A', 'acquire', 0, 0).ok('A', 'pause', 100, 2900).fail('B', 'acquire', 200, 2500).end(3000).build();
    expect(windows(h)).toEqual([['starvation', ['B', 'A'], 200, 2500]]);
  });
});

describe('deadlock', () => {
  it('a holder that crashed without releasing (lock with no TTL): the waiter gives up, the crash is named', () => {
    const h = history('A', 'B').ok('A', 'acquire', 0, 10).crash('A', 200).fail('B', 'acquire', 300, 2500).end(3000).build();
    expect(check(h)).toEqual([
      {
        kind: 'deadlock',
        clients: ['B', 'A'],
        from: 300,
        to: 2500,
        message: 'B waited 2.2 s for the lock from 0.30 s and gave up at 2.50 s (bound 1.0 s) while no live client held it (A crashed at 0.20 s)',
      },
    ]);
  });

  it('a client that crashed halfway through acquiring (SETNX, then crash before EXPIRE) is named too', () => {
    const h = history('A', 'B').open('A', 'acquire', 0).crash('A', 50).open('B', 'acquire', 100).end(2000).build();
    expect(windows(h)).toEqual([['deadlock', ['B', 'A'], 100, 2000]]);
  });

  it('nobody holds it and the waiter still cannot get it (a dead fair-queue head)', () => {
    const h = history('A', 'B').hold('A', 0, 500).fail('B', 'acquire', 100, 2100).end(2200).build();
    expect(check(h).map((v) => [v.kind, v.clients, v.message])).toEqual([
      ['deadlock', ['B'], 'B waited 2.0 s for the lock from 0.10 s and gave up at 2.10 s (bound 1.0 s) while no live client held it'],
    ]);
  });

  it('a hold ending exactly where the part beyond the bound starts does not make it starvation', () => {
    const h = history('A', 'B').hold('A', 0, 1100).fail('B', 'acquire', 100, 2100).end(2200).build();
    expect(windows(h)).toEqual([['deadlock', ['B'], 100, 2100]]);
  });

  it('a reader waiting to upgrade to a write lock waits on itself', () => {
    const h = history('A').ok('A', 'acquire', 0, 0, { shared: true }).open('A', 'acquire', 100).end(2000).build();
    expect(windows(h)).toEqual([['deadlock', ['A'], 100, 2000]]);
  });
});

describe('waits that are neither', () => {
  it('waits within the bound, at exactly the bound, and single attempts that fail fast', () => {
    const h = history('A', 'B', 'C')
      .ok('A', 'acquire', 0, 0).ok('A', 'release', 1500, 1500)
      .ok('B', 'acquire', 600, 1500)
      .fail('C', 'acquire', 100, 102).fail('C', 'acquire', 200, 1200)
      .end(2000).build();
    expect(check(h)).toEqual([]);
  });

  it('a waiter that crashes stops waiting at its crash', () => {
    const short = history('A', 'B').ok('A', 'acquire', 0, 0).open('B', 'acquire', 100).crash('B', 900).end(5000).build();
    expect(check(short)).toEqual([]);
    const long = history('A', 'B').ok('A', 'acquire', 0, 0).open('B', 'acquire', 100).crash('B', 1500).end(5000).build();
    expect(check(long).map((v) => [v.kind, v.to, v.message])).toEqual([
      ['starvation', 1500, 'B waited 1.4 s for the lock from 0.10 s until it crashed at 1.50 s (bound 1.0 s) while A held it'],
    ]);
  });

  it('a crashed holder whose lock expired and passed on is safe', () => {
    const h = history('A', 'B')
      .ok('A', 'acquire', 0, 0, { leaseMs: 500 }).ok('A', 'enter', 10, 10).ok('A', 'write', 20, 30, { value: 1, held: true })
      .crash('A', 100).server(100, ['A']).server(500, [])
      .ok('B', 'acquire', 50, 520).server(520, ['B'])
      .ok('B', 'enter', 530, 530).ok('B', 'write', 540, 550, { value: 2, held: true }).ok('B', 'leave', 560, 560)
      .ok('B', 'release', 570, 580)
      .end(1000).build();
    expect(check(h)).toEqual([]);
  });
});
