import { describe, expect, it } from 'vitest';
import { checkHistory, describeVerdict } from '../../../src/core/scenario/checker.js';
import { deriveIntervals } from '../../../src/core/scenario/checker-intervals.js';
import { matchesExpectation, violationKinds, type Verdict, type Violation } from '../../../src/core/scenario/verdict.js';
import { history } from './history-builder.js';

const opts = { starvationMs: 1000 };

// S4 without fencing: A pauses past its lease inside the section, B takes over, A wakes and writes.
const unfencedPause = history('A', 'B')
  .ok('A', 'acquire', 0, 10, { token: 33, leaseMs: 300 }).server(10, ['A'])
  .ok('A', 'enter', 20, 20, { held: true })
  .ok('A', 'pause', 30, 700)
  .server(310, [])
  .ok('B', 'acquire', 400, 410, { token: 34 }).server(410, ['B'])
  .ok('B', 'enter', 420, 420, { held: true })
  .ok('B', 'write', 500, 510, { token: 34, value: 2, accepted: true, held: true })
  .ok('A', 'write', 710, 720, { token: 33, value: 1, accepted: true, held: false })
  .ok('A', 'leave', 730, 730)
  .ok('B', 'leave', 800, 800).ok('B', 'release', 810, 820).server(820, [])
  .end(1000, 0, { value: 1, writer: 'A', token: 33 })
  .build();

describe('checkHistory', () => {
  it('an empty history is safe', () => {
    const verdict = checkHistory({ clients: [], nodes: [], events: [] }, opts);
    expect(verdict).toEqual({ violations: [] });
    expect(describeVerdict(verdict)).toEqual(['safe: no violation found']);
  });

  it('a clean run with faults, notes and server reads invents nothing', () => {
    const h = history('A', 'B')
      .note(0, 'scenario', 'two clients take turns')
      .hold('A', 0, 300, { leaseMs: 500 }).server(0, ['A'])
      .section('A', 10, 290).ok('A', 'write', 20, 30, { token: 1, accepted: true, held: true }).ok('A', 'incr', 40, 90, { read: 0, value: 1, held: true })
      .server(301, []).ok('B', 'acquire', 100, 310, { token: 2 }).server(310, ['B'])
      .section('B', 320, 590).ok('B', 'incr', 330, 380, { read: 1, value: 2, held: true })
      .ok('B', 'release', 600, 610).server(610, [])
      .end(700, 2, { value: 1, writer: 'A', token: 1 })
      .build();
    expect(checkHistory(h, opts).violations).toEqual([]);
  });

  it('finds every kind one history shows, sorted by the start of its window', () => {
    const verdict = checkHistory(unfencedPause, opts);
    expect(verdict.violations.map((v) => [v.kind, v.clients, v.from, v.to])).toEqual([
      ['mutual-exclusion', ['A', 'B'], 420, 730],
      ['stale-write', ['A', 'B'], 510, 720],
      ['stale-holder', ['A', 'B'], 710, 720],
    ]);
    expect(describeVerdict(verdict)).toEqual([
      'mutual-exclusion: A and B were both in the critical section for 310 ms, from 0.42 s to 0.73 s, while A was paused',
      "stale-write: A's write (token 33) overwrote B's newer write (token 34) at 0.72 s",
      "stale-holder: A's write (token 33) was accepted at 0.72 s while the server said B held the lock",
    ]);
  });

  it('times past 10 s get one decimal, like the timeline axis', () => {
    const h = history('A').ok('A', 'enter', 12_400, 12_500, { held: false }).end(13_000).build();
    expect(describeVerdict(checkHistory(h, opts))).toEqual([
      'stale-holder: A entered the critical section at 12.5 s while the server no longer had A as holder',
    ]);
  });

  it('is deterministic: the same history gives the same verdict', () => {
    expect(checkHistory(unfencedPause, opts)).toEqual(checkHistory(unfencedPause, opts));
  });
});

describe('deriveIntervals', () => {
  it('a hold ends at the release invoke even when the release fails, and a second acquire does not restart it', () => {
    const t = deriveIntervals(
      history('A')
        .ok('A', 'acquire', 0, 10).ok('A', 'acquire', 50, 60).fail('A', 'release', 100, 150)
        .ok('A', 'acquire', 200, 210, { shared: true })
        .end(400).build(),
    );
    expect(t.holds.map((h) => [h.from, h.to, h.endedBy, h.shared])).toEqual([
      [10, 100, 'op', false],
      [210, 400, 'end', true],
    ]);
  });

  it('a crash ends holds, sections and operations in flight; later events of the dead client are ignored', () => {
    const t = deriveIntervals(
      history('A').ok('A', 'acquire', 0, 0).ok('A', 'enter', 10, 10).open('A', 'write', 20).crash('A', 30).section('A', 40, 50).end(100).build(),
    );
    expect(t.crashes.get('A')).toBe(30);
    expect(t.holds.map((h) => [h.from, h.to, h.endedBy])).toEqual([[0, 30, 'crash']]);
    expect(t.sections.map((s) => [s.from, s.to, s.endedBy])).toEqual([[10, 30, 'crash']]);
    expect(t.spans.find((s) => s.op === 'write')).toMatchObject({ from: 20, to: 30, endedBy: 'crash' });
  });
});

describe('violationKinds / matchesExpectation', () => {
  const v = (kind: Violation['kind']): Violation => ({ kind, clients: ['A'], from: 0, to: 0, message: '' });
  const verdict: Verdict = { violations: [v('stale-write'), v('mutual-exclusion'), v('stale-write')] };

  it('lists each kind found once, in catalogue order', () => {
    expect(violationKinds(verdict)).toEqual(['mutual-exclusion', 'stale-write']);
    expect(violationKinds({ violations: [] })).toEqual([]);
  });

  it('matches exactly the expected kinds, in any order', () => {
    expect(matchesExpectation(verdict, ['stale-write', 'mutual-exclusion'])).toBe(true);
    expect(matchesExpectation(verdict, ['mutual-exclusion'])).toBe(false);
    expect(matchesExpectation(verdict, ['mutual-exclusion', 'stale-write', 'stale-holder'])).toBe(false);
    expect(matchesExpectation(verdict, [])).toBe(false);
  });

  it('expect: safe matches only a verdict with no violation', () => {
    expect(matchesExpectation({ violations: [] }, [])).toBe(true);
    expect(matchesExpectation({ violations: [] }, ['deadlock'])).toBe(false);
  });

  it('the real verdict of an unfenced pause matches what its scenario would expect', () => {
    const found = checkHistory(unfencedPause, opts);
    expect(matchesExpectation(found, ['mutual-exclusion', 'stale-holder', 'stale-write'])).toBe(true);
    expect(matchesExpectation(found, ['mutual-exclusion'])).toBe(false);
  });
});
