import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { History } from '../../src/core/scenario/history.js';
import { deriveLanes } from '../../src/core/scenario/timeline.js';
import { Swimlane } from '../../src/ui/Swimlane.js';
import { bothInSection, pauseHistory, staleWrite } from '../core/scenario/timeline-fixtures.js';

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

function frameOf(node: React.ReactElement): string[] {
  const view = render(node);
  unmount = view.unmount;
  return (view.lastFrame() ?? '').split('\n');
}

const row = (lines: string[], label: string) => lines.find((l) => l.startsWith(`${label} `)) ?? '';
const widest = (lines: string[]) => Math.max(...lines.map((l) => [...l].length));

/** The history as it stood at `t`: what a live view has received so far. */
const upTo = (h: History, t: number): History => ({ ...h, events: h.events.filter((e) => e.t <= t && e.kind !== 'end') });

describe('Swimlane', () => {
  it('draws a lane per client and per node, with states, marks, faults and holders', () => {
    const lines = frameOf(<Swimlane lanes={deriveLanes(pauseHistory())} width={80} />);
    expect(lines[0]).toMatch(/^s {3}0 +0\.5 +1 +1\.5 +2$/);
    expect(row(lines, 'A')).toMatch(/^A {3}█+░+w█*f$/);
    expect(row(lines, 'B')).toMatch(/^B {3} +·+━+█+w█+━$/);
    expect(row(lines, 'C')).toMatch(/^C {3} +·+×+$/);
    // The server lane: A's letter until its lease ran out, then B's; never both at once.
    expect(row(lines, 'n1')).toMatch(/^n1 {2}A+ ?B+$/);
    expect(row(lines, 'n2')).toMatch(/^n2 {2} +×+$/);
    expect(row(lines, '!')).toBe('');
    expect(lines.at(-2)).toBe('    · waiting  ━ holding  █ in section  ░ paused  × crashed/killed');
    expect(lines.at(-1)).toBe('    w write accepted  f release failed');
    expect(widest(lines)).toBeLessThanOrEqual(80);
  });

  it('highlights the violation windows in a row of their own', () => {
    const lines = frameOf(<Swimlane lanes={deriveLanes(pauseHistory(), { violations: [bothInSection, staleWrite] })} width={80} />);
    const marks = row(lines, '!');
    const b = row(lines, 'B');
    // The window starts under B's entry into the section, 1.10 s into a 2.5 s run.
    expect(marks).toMatch(/^! {3} +!+$/);
    expect(marks.indexOf('!', 1)).toBe(b.indexOf('█'));
    expect(lines.at(-1)).toBe('    w write accepted  f release failed  ! violation');
  });

  it('live: the lanes stop at now and a cursor stands there on a fixed axis', () => {
    const lanes = deriveLanes(upTo(pauseHistory(), 1250), { now: 1250 });
    const lines = frameOf(<Swimlane lanes={lanes} width={55} spanMs={5000} live />);
    // 50 columns for 5 s: now (1.25 s) is column 12, the cursor the column after it.
    expect(lines[0]).toMatch(/^s {3}0 +1 +2 +3 +4$/);
    for (const label of ['A', 'B', 'C', 'n1', 'n2']) {
      const lane = row(lines, label);
      expect(lane.length, label).toBe(4 + 14);
      expect(lane.at(-1), label).toBe('│');
    }
    expect(row(lines, 'A')).toMatch(/^A {3}█░+│$/);
    expect(row(lines, 'C')).toMatch(/^C {3} +│$/);
  });

  it('never wraps a lane on a narrow terminal', () => {
    const lines = frameOf(<Swimlane lanes={deriveLanes(pauseHistory(), { violations: [bothInSection] })} width={30} />);
    expect(widest(lines)).toBeLessThanOrEqual(30);
    expect(lines.map((l) => l.split(' ')[0]).slice(0, 7)).toEqual(['s', 'A', 'B', 'C', 'n1', 'n2', '!']);
    expect(lines.slice(7).every((l) => l.startsWith('    '))).toBe(true);
  });
});
