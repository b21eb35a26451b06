import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../../src/core/scenario/checker.js';
import type { History } from '../../../src/core/scenario/history.js';
import { history } from './history-builder.js';

const check = (h: History) => checkHistory(h, { starvationMs: 10_000 }).violations;
const windows = (h: History) => check(h).map((v) => [v.kind, v.clients, v.from, v.to]);

describe('mutual-exclusion', () => {
  it('finds two clients inside at once, over exactly their overlap', () => {
    const h = history('A', 'B').hold('A', 0, 600).section('A', 100, 500).hold('B', 200, 900).section('B', 300, 800).end(1000).build();
    expect(check(h)).toEqual([
      {
        kind: 'mutual-exclusion',
        clients: ['A', 'B'],
        from: 300,
        to: 500,
        message: 'A and B were both in the critical section for 200 ms, from 0.30 s to 0.50 s',
      },
    ]);
  });

  it('clean sequential holds are safe', () => {
    const h = history('A', 'B', 'C')
      .hold('A', 0, 300).section('A', 10, 290)
      .hold('B', 301, 600).section('B', 310, 590)
      .hold('C', 601, 900).section('C', 610, 890)
      .end(1000).build();
    expect(check(h)).toEqual([]);
  });

  it('touching sections ([0,100] then [100,200]) do not overlap', () => {
    const h = history('A', 'B').section('A', 0, 100).section('B', 100, 200).end(300).build();
    expect(check(h)).toEqual([]);
  });

  it('names the client that entered first first, whatever the recording order', () => {
    const h = history('A', 'B').section('B', 50, 150).section('A', 100, 200).end(300).build();
    expect(windows(h)).toEqual([['mutual-exclusion', ['B', 'A'], 100, 150]]);
  });

  it('an enter invoked but never completed counts from its invoke to the end of the history', () => {
    const h = history('A', 'B').section('B', 300, 600).open('A', 'enter', 400).end(1000).build();
    expect(windows(h)).toEqual([['mutual-exclusion', ['B', 'A'], 400, 600]]);
  });

  it('a section never left runs to the end of the history, and the message says so', () => {
    const h = history('A', 'B').ok('A', 'enter', 100, 100).section('B', 800, 900).ok('B', 'enter', 950, 950).end(1000).build();
    const found = check(h);
    expect(found.map((v) => [v.from, v.to])).toEqual([[800, 900], [950, 1000]]);
    expect(found[1]?.message).toBe('A and B were both in the critical section for 50 ms, from 0.95 s to 1.00 s (the end of the run)');
  });

  it('an enter that failed is no section', () => {
    const h = history('A', 'B').section('A', 0, 500).fail('B', 'enter', 100, 120).end(600).build();
    expect(check(h)).toEqual([]);
  });

  it('a crash inside the section ends it at the crash', () => {
    const safe = history('A', 'B').ok('A', 'enter', 0, 0).crash('A', 200).section('B', 200, 400).end(500).build();
    expect(check(safe)).toEqual([]);
    const overlap = history('A', 'B').ok('A', 'enter', 0, 0).section('B', 100, 400).crash('A', 250).end(500).build();
    expect(windows(overlap)).toEqual([['mutual-exclusion', ['A', 'B'], 100, 250]]);
  });

  it('a paused client is still inside its section, and the message says it was paused', () => {
    const h = history('A', 'B')
      .hold('A', 0, 900, { leaseMs: 300 }).ok('A', 'enter', 10, 10).ok('A', 'pause', 50, 800).ok('A', 'leave', 850, 850)
      .hold('B', 400, 700).section('B', 410, 690)
      .end(1000).build();
    expect(check(h)).toEqual([
      expect.objectContaining({
        clients: ['A', 'B'],
        from: 410,
        to: 690,
        message: 'A and B were both in the critical section for 280 ms, from 0.41 s to 0.69 s, while A was paused',
      }),
    ]);
  });

  it('a paused client that is not in its section is safe', () => {
    const h = history('A', 'B').section('A', 0, 100).ok('A', 'pause', 200, 800).section('B', 300, 600).end(1000).build();
    expect(check(h)).toEqual([]);
  });

  it('three clients: one violation per overlapping pair, sorted by start', () => {
    const h = history('A', 'B', 'C').section('A', 0, 300).section('B', 100, 400).section('C', 200, 250).end(500).build();
    expect(windows(h)).toEqual([
      ['mutual-exclusion', ['A', 'B'], 100, 300],
      ['mutual-exclusion', ['A', 'C'], 200, 250],
      ['mutual-exclusion', ['B', 'C'], 200, 250],
    ]);
  });

  it('the same pair overlapping twice gives two windows', () => {
    const h = history('A', 'B').section('A', 0, 100).section('A', 200, 300).section('B', 50, 250).end(400).build();
    expect(windows(h)).toEqual([
      ['mutual-exclusion', ['A', 'B'], 50, 100],
      ['mutual-exclusion', ['B', 'A'], 200, 250],
    ]);
  });

  it('ties at the same millisecond: entering together overlaps, client order breaks the tie', () => {
    const h = history('A', 'B').section('B', 100, 200).section('A', 100, 150).end(300).build();
    expect(windows(h)).toEqual([['mutual-exclusion', ['A', 'B'], 100, 150]]);
  });

  it('sections under read locks do not conflict with each other, only with a write lock', () => {
    const readers = history('R1', 'R2')
      .hold('R1', 0, 500, { shared: true }).section('R1', 10, 490)
      .hold('R2', 100, 600, { shared: true }).section('R2', 110, 590)
      .end(700).build();
    expect(check(readers)).toEqual([]);

    const writer = history('R1', 'W')
      .hold('R1', 0, 500, { shared: true }).section('R1', 10, 490)
      .hold('W', 100, 600).section('W', 110, 590)
      .end(700).build();
    expect(windows(writer)).toEqual([['mutual-exclusion', ['R1', 'W'], 110, 490]]);
  });

  it('a section entered after releasing a read lock is exclusive again', () => {
    const h = history('R1', 'R2')
      .hold('R1', 0, 50, { shared: true }).section('R1', 100, 300)
      .hold('R2', 0, 500, { shared: true }).section('R2', 10, 490)
      .end(600).build();
    expect(windows(h)).toEqual([['mutual-exclusion', ['R2', 'R1'], 100, 300]]);
  });
});
