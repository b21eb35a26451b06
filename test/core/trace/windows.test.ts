import { describe, expect, it } from 'vitest';
import { checkEvents, TraceChecker, type Finding } from '../../../src/core/trace/checker.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import { findingLine, traceTime } from '../../../src/core/trace/format.js';

// The windows of a stale holder's findings: from its loss to its last act as holder seen, and each
// other holder's hold inside that window, named per pair. Times are ms after T0.

const T0 = 1_764_064_800_000;
const [A, B, C] = ['6f1c2a3b-0000-4000-8000-000000000001:1', '9e8d7c6b-0000-4000-8000-000000000002:1', '0a0b0c0d-0000-4000-8000-000000000003:1'];
const ev = (ms: number, kind: TraceEvent['kind'], owner: string, extra: Partial<TraceEvent> = {}): TraceEvent => ({ kind, t: T0 + ms, lock: 'job', owner, library: 'redisson', ...extra });

/** A (watchdog, 1.5 s lease) frozen past its lease; B takes the lock and holds it 1.5 s; A wakes, its renewal is refused; 5 s later its unlock is refused. */
const frozenHolder: TraceEvent[] = [
  ev(0, 'acquired', A, { leaseMs: 1500, count: 1 }),
  ev(500, 'renewed', A, { leaseMs: 1500 }),
  ev(1000, 'renewed', A, { leaseMs: 1500 }),
  ev(2500, 'expired', A, { leaseMs: 1500 }),
  ev(3000, 'acquired', B, { leaseMs: 30_000, count: 1 }),
  ev(3160, 'renew-refused', A, { holders: [B] }),
  ev(4500, 'released', B, { count: 0 }),
  ev(8160, 'release-refused', A, { holders: [] }),
];

const windows = (findings: readonly Finding[]) => findings.map((f) => [f.kind, f.owners.join(','), f.from - T0, f.to - T0, f.update ?? false]);

describe('the windows of a stale holder', () => {
  it("expired-while-held runs to the stale owner's refused unlock, and the overlap covers the other's whole hold", () => {
    expect(windows(checkEvents(frozenHolder))).toEqual([
      ['renewal-gap', A, 2500, 2500, false],
      ['expired-while-held', A, 2500, 8160, false],
      ['overlap', `${A},${B}`, 3000, 4500, false],
    ]);
  });

  it('live, the first refusal issues the findings and the later act issues them again with the longer window, as updates', () => {
    const checker = new TraceChecker();
    const issued = frozenHolder.map((e) => windows(checker.push(e)));
    expect(issued.slice(5)).toEqual([
      [
        ['expired-while-held', A, 2500, 3160, false],
        ['overlap', `${A},${B}`, 3000, 3160, false],
      ],
      [],
      [
        ['expired-while-held', A, 2500, 8160, true],
        ['overlap', `${A},${B}`, 3000, 4500, true],
      ],
    ]);
    // The list keeps one finding per window, with its latest end: an update replaces, never adds.
    expect(checker.findings).toHaveLength(3);
    const [, expired, overlap] = checker.findings;
    expect(expired?.message).toContain(`it tried to renew at ${traceTime(T0 + 3160)} and was refused, and went on as its holder until ${traceTime(T0 + 8160)}`);
    expect(expired?.message).toContain('its release was refused): it worked without the lock for 5660 ms');
    expect(overlap?.message).toContain('both may have been inside for 1500 ms');
    expect(findingLine({ ...overlap!, update: true })).toMatch(/^! overlap \(updated\) job /);
  });

  it('a holder that acquired after the first refusal overlaps from the later act, named as its own pair', () => {
    const events = [
      ...frozenHolder.slice(0, 7),
      ev(5000, 'acquired', C, { leaseMs: 30_000, count: 1 }),
      ev(8160, 'release-refused', A, { holders: [C] }),
      ev(9000, 'released', C, { count: 0 }),
    ];
    const checker = new TraceChecker();
    const last = events.slice(0, -1).map((e) => windows(checker.push(e))).at(-1);
    expect(last).toEqual([
      ['expired-while-held', A, 2500, 8160, true],
      ['overlap', `${A},${B}`, 3000, 4500, true],
      ['overlap', `${A},${C}`, 5000, 8160, false],
    ]);
  });

  it('an act that does not lengthen the window issues nothing again', () => {
    const checker = new TraceChecker();
    for (const e of frozenHolder) checker.push(e);
    expect(checker.push(ev(8160, 'release-refused', A, { holders: [] }))).toEqual([]);
  });

  it('a write over the key by the stale owner is its last act as holder: the window runs to it', () => {
    const token = (ms: number, kind: TraceEvent['kind'], owner: string, extra: Partial<TraceEvent> = {}) => ev(ms, kind, owner, { library: 'token', ...extra });
    const findings = checkEvents([
      token(0, 'acquired', 'a1', { leaseMs: 1000, count: 1 }),
      token(1000, 'expired', 'a1', { leaseMs: 1000 }),
      token(1200, 'acquired', 'b1', { leaseMs: 10_000, count: 1 }),
      token(1300, 'renew-refused', 'a1', { holders: ['b1'] }),
      token(2000, 'acquired', 'a1', { leaseMs: 1000, count: 1, overwrite: true, holders: ['b1'] }),
    ]);
    expect(windows(findings)).toEqual([
      ['expired-while-held', 'a1', 1000, 2000, false],
      ['overlap', 'a1,b1', 1200, 2000, false],
      ['silent-reacquire', 'a1,b1', 1000, 2000, false],
    ]);
  });
});

describe('the cost of a stale holder that keeps acting', () => {
  it('each act visits only the holds it can still lengthen and those begun since: 10,000 acts stay fast', () => {
    // A lost `job` at 2.5 s and then, for every one of 10,000 later holders, had a renewal refused
    // while that holder held it: 10,000 pairs, each settled at the first act after its holder released.
    const events: TraceEvent[] = frozenHolder.slice(0, 4);
    for (let i = 0; i < 10_000; i++) {
      const t = 3000 + i * 10;
      events.push(ev(t, 'acquired', `b${i}`, { library: 'token', leaseMs: 30_000, count: 1 }));
      events.push(ev(t + 5, 'renew-refused', A, { holders: [`b${i}`] }));
      events.push(ev(t + 8, 'released', `b${i}`, { library: 'token', count: 0 }));
    }
    const start = process.cpuUsage();
    const checker = new TraceChecker();
    let updates = 0;
    for (const e of events) updates += checker.push(e).filter((f) => f.update).length;
    const used = process.cpuUsage(start);
    // Walking every kept hold at each act built 10 million findings here; the bounded walk builds about 30,000.
    expect((used.user + used.system) / 1e6).toBeLessThan(10);
    const overlaps = checker.findings.filter((f) => f.kind === 'overlap');
    expect(overlaps).toHaveLength(10_000);
    // Each holder's whole hold (to its release), as A acted again after it; the last one to A's last act.
    const whole = (f: Finding, i: number) => f.from === T0 + 3000 + i * 10 && f.to === T0 + 3000 + i * 10 + (i < 9_999 ? 8 : 5);
    expect(overlaps.filter((f, i) => !whole(f, i))).toEqual([]);
    // At each act after the first: expired-while-held, and the previous holder's overlap, once settled.
    expect(updates).toBe(2 * 9_999);
  });
});
