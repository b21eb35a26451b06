import { describe, expect, it } from 'vitest';
import type { History } from '../../../src/core/scenario/history.js';
import { summaryTable } from '../../../src/core/scenario/scenario-summary.js';
import { chartLines, eventListLines, scenarioRunText, variantTextLines } from '../../../src/core/scenario/timeline-text.js';
import { deriveLanes } from '../../../src/core/scenario/timeline.js';
import { bothInSection, events, pauseHistory, staleWrite, variantRun } from './timeline-fixtures.js';

const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));

/** A's lease runs out inside its section, B takes the lock and enters too. */
function overlapHistory(): History {
  return events(['A', 'B'], ['n1'])
    .op('A', 'acquire', 0, 0, { leaseMs: 300 })
    .server('n1', 0, ['A'], 300)
    .op('A', 'enter', 50, 50)
    .server('n1', 300, [], -2)
    .op('B', 'acquire', 200, 350, { leaseMs: 1000 })
    .server('n1', 350, ['B'], 1000)
    .op('B', 'enter', 400, 400)
    .op('B', 'write', 500, 500, { value: 2, accepted: true })
    .op('A', 'leave', 600, 600)
    .fail('A', 'release', 650, 650, { detail: 'not owner' })
    .op('B', 'leave', 700, 700)
    .op('B', 'release', 750, 750)
    .server('n1', 750, [], -2)
    .end(1000)
    .build();
}

describe('text timeline', () => {
  it('draws a small run exactly: lanes, server lane, violation row, legend, events, verdict', () => {
    const overlap = { kind: 'mutual-exclusion' as const, clients: ['A', 'B'], from: 400, to: 600, message: 'A and B were both in the critical section for 200 ms' };
    const run = variantRun('unsafe', overlapHistory(), [overlap], ['mutual-exclusion'], 'lease shorter than the work');
    // 44 columns: a 4-column label and 40 columns of 25 ms each.
    expect(variantTextLines(run, 44).join('\n')).toBe(
      [
        'variant unsafe: lease shorter than the work',
        '  (expect mutual-exclusion, ran 1.00 s)',
        '',
        'sec 0       0.2     0.4     0.6     0.8',
        'A   ==######################==f',
        'B           ......==####w#######==',
        'n1  AAAAAAAAAAAA  BBBBBBBBBBBBBBBB',
        '!                   !!!!!!!!',
        'legend: . waiting  = holding  # in section',
        '        w write accepted  f release failed',
        '        ! violation',
        '',
        '  0.00 s  A    acquire ok (lease 0.30 s)',
        '  0.00 s  n1   server: held by A (ttl',
        '               0.30 s)',
        '  0.05 s  A    enter ok',
        '  0.20 s  B    acquire …',
        '  0.30 s  n1   server: free',
        '  0.35 s  B    acquire ok (lease 1.00 s)',
        '  0.35 s  n1   server: held by B (ttl',
        '               1.00 s)',
        '  0.40 s  B    enter ok',
        '  0.50 s  B    write ok (value 2, accepted)',
        '  0.60 s  A    leave ok',
        '  0.65 s  A    release FAILED (not owner)',
        '  0.70 s  B    leave ok',
        '  0.75 s  B    release ok',
        '  0.75 s  n1   server: free',
        '  1.00 s  end  counter 0, register empty',
        '',
        'verdict: expected mutual-exclusion, found',
        '  mutual-exclusion: as expected',
        '  ! mutual-exclusion 0.40-0.60 s (A, B): A',
        '    and B were both in the critical section',
        '    for 200 ms',
      ].join('\n'),
    );
  });

  it('fits 80 columns with three clients, node lanes, faults and two variants', () => {
    const text = scenarioRunText({
      name: 'gc-pause-stale-write',
      title: 'A long GC pause without fencing lets a stale holder overwrite the new holder',
      variants: [
        variantRun('unsafe', pauseHistory(), [bothInSection, staleWrite], ['mutual-exclusion', 'stale-write']),
        variantRun('fenced', pauseHistory(), [bothInSection, staleWrite], []),
      ],
    });
    expect(widest(text)).toBeLessThanOrEqual(80);
    const chart = text.split('\n');
    const lane = (name: string) => chart.find((l) => l.startsWith(`${name} `))!;
    expect(lane('A')).toMatch(/^A {3}#+z+w#*f$/);
    expect(lane('B')).toMatch(/^B {3}[ ]+\.+=*#*w#+=*$/);
    expect(lane('C')).toMatch(/^C {3} +\.+x+$/);
    expect(lane('n1')).toMatch(/^n1 {2}A+ *B+$/);
    expect(lane('n2')).toMatch(/^n2 {2} +x+$/);
    expect(lane('!')).toMatch(/^! {3} +!+$/);
    expect(text).toContain('legend: . waiting  = holding  # in section  z paused  x crashed/killed');
    expect(text).toContain('  1.62 s  A    write ok (token 33, value 1, accepted, server says not held)');
    expect(text).toContain('  ! stale-write at 1.62 s (A, B): ');
    expect(text).toMatch(/^ok {4}unsafe {2}expected mutual-exclusion, stale-write, found mutual-exclusion,$/m);
    expect(text).toMatch(/^FAIL {2}fenced {2}expected safe, found mutual-exclusion, stale-write$/m);
  });

  it('long names, details and messages wrap instead of passing 80 columns; names get codes', () => {
    const h = events(['alice', 'bob-the-long-named-worker'], ['primary'])
      .op('alice', 'acquire', 0, 10, { detail: 'x'.repeat(120) })
      .server('primary', 11, ['alice'])
      .server('primary', 300, ['alice', 'bob-the-long-named-worker'])
      .server('primary', 500, ['somebody-else-entirely'])
      .op('bob-the-long-named-worker', 'release', 20, 30, { detail: 'naive DEL removed the lock alice held, whatever the token said at the time' })
      .end(1000)
      .build();
    const v = { ...staleWrite, clients: ['alice'], message: 'word '.repeat(40) };
    const text = variantTextLines(variantRun('unsafe', h, [v], ['stale-write']), 80).join('\n');
    expect(widest(text)).toBeLessThanOrEqual(80);
    expect(text).toMatch(/^primary +A+&+\?+$/m);
    expect(text).toMatch(/ A alice$/m);
    // A long name keeps its end, in the chart and in the event lines alike.
    expect(text).toMatch(/^…-worker$/m);
    expect(text).toMatch(/^ +0\.03 s {2}…-worker {2}release ok/m);
  });

  it('an invoke followed at once by its completion is one line; one that waits is two', () => {
    const h = events(['A', 'B']).op('A', 'acquire', 0, 5).op('B', 'acquire', 10, 102).op('A', 'release', 100, 101).build();
    expect(eventListLines(h)).toEqual([
      '  0.01 s  A  acquire ok',
      '  0.01 s  B  acquire …',
      '  0.10 s  A  release ok',
      '  0.10 s  B  acquire ok',
    ]);
  });

  it('a chart without events is only an axis', () => {
    expect(chartLines(deriveLanes({ clients: ['A'], nodes: ['n1'], events: [] }))).toEqual(['sec 0', 'A']);
  });
});

describe('--all summary table', () => {
  it('one row per scenario with verdicts and time, a total line, at most 80 columns', () => {
    const lines = summaryTable([
      { name: 'expired-lease-misdeletion', variants: [{ variant: 'unsafe', outcome: 'as-expected' }, { variant: 'fixed', outcome: 'as-expected' }], durationMs: 4200 },
      { name: 'gc-pause-stale-write', variants: [{ variant: 'unsafe', outcome: 'as-expected' }, { variant: 'fenced', outcome: 'not-as-expected' }], durationMs: 3100 },
      { name: 'redlock-clock-jump-with-a-name-far-too-long-for-the-table', error: 'redis-server did not start', durationMs: 900 },
      { name: 'rw-writer-starvation' },
    ]);
    expect(lines).toEqual([
      'SCENARIO                                    VARIANTS  VERDICTS              TIME',
      'expired-lease-misdeletion                          2  unsafe ✓  fixed ✓    4.2 s',
      'gc-pause-stale-write                               2  unsafe ✓  fenced ✗   3.1 s',
      'redlock-clock-jump-with-a-name-far-too-lo…         -  error: redis-serv…  900 ms',
      'rw-writer-starvation                               -  not run                  -',
      '4 scenarios in 8.2 s, 3 not as expected: gc-pause-stale-write, redlock-clock-ju…',
    ]);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
  });

  it('when every scenario errors, the messages get the width the names leave', () => {
    const lines = summaryTable([
      { name: 'my-race', error: "redis-server refused the sandbox config: Bad directive or wrong number of arguments", durationMs: 120 },
      { name: 'other-race', error: 'topology sentinel needs redis-sentinel', durationMs: 80 },
    ]);
    expect(lines).toEqual([
      'SCENARIO    VARIANTS  VERDICTS                                              TIME',
      'my-race            -  error: redis-server refused the sandbox config: B…  120 ms',
      'other-race         -  error: topology sentinel needs redis-sentinel        80 ms',
      '2 scenarios in 200 ms, 2 not as expected: my-race, other-race',
    ]);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
  });

  it('keeps every column on a 40-column terminal', () => {
    const lines = summaryTable([{ name: 'expired-lease-misdeletion', variants: [{ variant: 'unsafe', outcome: 'as-expected' }, { variant: 'fixed', outcome: 'not-as-expected' }], durationMs: 4200 }], 40);
    expect(lines).toEqual([
      'SCENARIO     N  VERDICTS            TIME',
      'expired-le…  2  unsafe ✓  fixed ✗  4.2 s',
      '1 scenario in 4.2 s, 1 not as expected:…',
    ]);
  });
});
