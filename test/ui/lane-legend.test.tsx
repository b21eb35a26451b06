import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_STATES, type Lanes, type MarkKind, type NodeFault } from '../../src/core/scenario/timeline.js';
import { chartLines } from '../../src/core/scenario/timeline-text.js';
import { Swimlane } from '../../src/ui/Swimlane.js';

// Every glyph a lane chart draws is explained under it, in the text chart and the ink swimlane
// alike: one lane per client state, mark kind and node fault, a node held by two clients, by an
// unknown one, and a violation window, each wide enough to be drawn at 80 columns.

const MARKS: readonly MarkKind[] = ['acquire-fail', 'release-ok', 'release-fail', 'renew-ok', 'renew-fail', 'write-ok', 'write-rejected', 'incr', 'lost', 'fault', 'fault-fail', 'note'];
const FAULTS: readonly NodeFault[] = ['killed', 'paused', 'partitioned'];
const SPAN = 1000;

function everything(): Lanes {
  const states = CLIENT_STATES.map((state) => ({ name: `c-${state}`, segments: [{ from: 0, to: SPAN, state, holds: false }], marks: [] }));
  const marks = MARKS.map((kind) => ({ name: `m-${kind}`, segments: [{ from: 0, to: SPAN, state: 'idle' as const, holds: false }], marks: [{ t: 500, kind, text: kind }] }));
  const faults = FAULTS.map((fault) => ({ name: `f-${fault}`, faults: [{ from: 0, to: SPAN, fault, open: true }], holders: [], marks: [] }));
  const held = [
    { name: 'both', faults: [], holders: [{ from: 0, to: SPAN, holders: ['c-holding', 'c-waiting'], ttlMs: 1 }], marks: [] },
    { name: 'stranger', faults: [], holders: [{ from: 0, to: SPAN, holders: ['someone-else'], ttlMs: 1 }], marks: [] },
    { name: 'one', faults: [], holders: [{ from: 0, to: SPAN, holders: ['c-holding'], ttlMs: 1 }], marks: [] },
  ];
  return {
    end: SPAN,
    clients: [...states, ...marks],
    nodes: [...faults, ...held],
    violations: [{ kind: 'overlap', from: 100, to: 900, clients: ['c-holding'], message: 'overlap' }],
  };
}

/** The glyphs drawn on the lanes (after each row's label), and the legend's items. */
function split(lines: readonly string[], labelWidth: number, legendFrom: number): { drawn: Set<string>; legend: string } {
  const drawn = new Set(lines.slice(1, legendFrom).flatMap((l) => [...l.slice(labelWidth)]).filter((c) => c.trim() !== ''));
  return { drawn, legend: lines.slice(legendFrom).join(' ') };
}

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

describe('lane chart legends', () => {
  const lanes = everything();
  const rows = 1 + lanes.clients.length + lanes.nodes.length + 1; // axis, lanes, violation row

  it('the text chart explains every glyph it draws', () => {
    const lines = chartLines(lanes, 80);
    const { drawn, legend } = split(lines, 9, rows);
    expect(drawn.size).toBeGreaterThan(15);
    for (const glyph of drawn) expect(legend, `"${glyph}" in: ${legend}`).toMatch(new RegExp(`(^|\\s)${glyph.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\S`));
  });

  it('the swimlane explains every glyph it draws, the live cursor too', () => {
    const view = render(<Swimlane lanes={lanes} width={80} spanMs={2 * SPAN} live />);
    unmount = view.unmount;
    const lines = (view.lastFrame() ?? '').split('\n');
    const { drawn, legend } = split(lines, 9, rows);
    expect(drawn.size).toBeGreaterThan(15);
    for (const glyph of drawn) expect(legend, `"${glyph}" in: ${legend}`).toMatch(new RegExp(`(^|\\s)${glyph.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\S`));
  });
});
