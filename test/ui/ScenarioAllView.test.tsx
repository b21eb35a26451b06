import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScenarioRun } from '../../src/core/scenario/run.js';
import { createScenarioAllStore } from '../../src/ui/scenario-all-store.js';
import { ScenarioAllView } from '../../src/ui/ScenarioAllView.js';
import { bothInSection, pauseHistory, staleWrite, variantRun } from '../core/scenario/timeline-fixtures.js';

const TICK_MS = 5;
let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

const NAMES = ['expired-lease-misdeletion', 'gc-pause-stale-write', 'redlock-clock-jump'];

function mount(columns = 100) {
  let now = 0;
  const store = createScenarioAllStore(NAMES, () => now);
  const view = render(<ScenarioAllView store={store} columns={columns} tickMs={TICK_MS} />);
  unmount = view.unmount;
  const frame = () => view.lastFrame() ?? '';
  const until = async (pattern: RegExp): Promise<string> => {
    const deadline = Date.now() + 3000;
    while (!pattern.test(frame()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, TICK_MS));
    return frame();
  };
  return { store, until, at: (ms: number) => void (now = ms) };
}

const h = pauseHistory();
const passing: ScenarioRun = {
  name: 'expired-lease-misdeletion',
  title: 'naive DEL',
  variants: [variantRun('unsafe', h, [staleWrite], ['stale-write']), variantRun('fixed', h, [], [])],
};
const failing: ScenarioRun = {
  name: 'gc-pause-stale-write',
  title: 'GC pause',
  variants: [variantRun('unsafe', h, [bothInSection, staleWrite], ['mutual-exclusion', 'stale-write']), variantRun('fenced', h, [bothInSection], ['mutual-exclusion', 'stale-write'])],
};

describe('ScenarioAllView', () => {
  it('shows each scenario pending, running a variant, done with ✓ or ✗, then a summary table', async () => {
    const ui = mount(120);
    let frame = await ui.until(/pending/);
    expect(frame.split('\n')).toEqual([
      '○ expired-lease-misdeletion pending',
      '○ gc-pause-stale-write      pending',
      '○ redlock-clock-jump        pending',
    ]);

    ui.store.startScenario('expired-lease-misdeletion', 2);
    ui.store.startVariant('expired-lease-misdeletion', 'fixed', 1);
    ui.at(1300);
    frame = await ui.until(/running variant fixed \(2\/2\) {2}1\.3 s/);
    expect(frame).toMatch(/^● expired-lease-misdeletion running variant fixed \(2\/2\) {2}1\.3 s$/m);

    ui.at(4200);
    ui.store.finishScenario(passing);
    ui.store.startScenario('gc-pause-stale-write', 2);
    ui.store.startVariant('gc-pause-stale-write', 'unsafe', 0);
    ui.at(7300);
    ui.store.finishScenario(failing);
    frame = await ui.until(/gc-pause-stale-write +done/);
    expect(frame).toMatch(/^✓ expired-lease-misdeletion done in 4\.2 s$/m);
    expect(frame).toMatch(/^✗ gc-pause-stale-write {6}done in 3\.1 s: fenced found mutual-exclusion, expected mutual-exclusion, stale-write$/m);
    expect(frame).not.toContain('SCENARIO');

    ui.store.startScenario('redlock-clock-jump');
    ui.at(7400);
    ui.store.failScenario('redlock-clock-jump', 'redis-server did not start on 127.0.0.1:17001');
    frame = await ui.until(/SCENARIO/);
    expect(frame).toMatch(/^✗ redlock-clock-jump {8}error: redis-server did not start on 127\.0\.0\.1:17001$/m);
    const table = frame.split('\n').slice(frame.split('\n').findIndex((l) => l.startsWith('SCENARIO')));
    expect(table[0]).toMatch(/^SCENARIO +VARIANTS +VERDICTS +TIME$/);
    expect(table[1]).toMatch(/^expired-lease-misdeletion +2 +unsafe ✓ {2}fixed ✓ +4\.2 s$/);
    expect(table[2]).toMatch(/^gc-pause-stale-write +2 +unsafe ✓ {2}fenced ✗ +3\.1 s$/);
    // The error gets the width the names leave: whole here, not cut to the verdicts' width.
    expect(table[3]).toMatch(/^redlock-clock-jump +- +error: redis-server did not start on 127\.0\.0\.1:17001 +100 ms$/);
    expect(table[4]).toBe('3 scenarios in 7.4 s, 2 not as expected: gc-pause-stale-write, redlock-clock-jump');
  });

  it('cuts lines instead of wrapping them on a narrow terminal', async () => {
    const ui = mount(40);
    ui.store.finishScenario(passing, 4200);
    ui.store.finishScenario(failing, 3100);
    ui.store.failScenario('redlock-clock-jump', 'redis-server did not start on 127.0.0.1:17001');
    const frame = await ui.until(/SCENARIO/);
    const lines = frame.split('\n');
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(40);
    // One line per scenario, a blank line, the header, three rows and the total.
    expect(lines).toHaveLength(3 + 1 + 1 + 3 + 1);
    expect(lines[1]).toMatch(/^✗ gc-pause-stale-wri… done in 3\.1 s: f…$/);
  });
});
