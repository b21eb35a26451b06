import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/core/text-layout.js';
import type { HistoryEvent } from '../../src/core/scenario/history.js';
import { EventEmitter } from 'node:events';
import { mountScenarioRunView } from '../../src/ui/scenario-live.js';
import { createScenarioRunStore } from '../../src/ui/scenario-run-store.js';
import { ScenarioRunView } from '../../src/ui/ScenarioRunView.js';
import { bothInSection, pauseHistory, staleWrite, variantRun } from '../core/scenario/timeline-fixtures.js';

const TICK_MS = 5;
let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

/** `terminal`: ink's root width, as a terminal of that many columns gives it (default: ink-testing-library's 100). */
function mount(columns = 100, terminal?: number) {
  let now = 0;
  const store = createScenarioRunStore({ name: 'gc-pause-stale-write', title: 'A long pause without fencing', variantCount: 2, clock: () => now });
  const app = <ScenarioRunView store={store} columns={columns} tickMs={TICK_MS} />;
  const view = render(terminal === undefined ? app : <Box width={terminal}>{app}</Box>);
  unmount = view.unmount;
  const frame = () => view.lastFrame() ?? '';
  // Ink repaints on its own schedule: wait (bounded) for the frame to show what the test expects.
  const until = async (pattern: RegExp): Promise<string> => {
    const deadline = Date.now() + 3000;
    while (!pattern.test(frame()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, TICK_MS));
    return frame();
  };
  return {
    store,
    until,
    at: (ms: number) => void (now = ms),
    start: (variant: string, expected: ('mutual-exclusion' | 'stale-write')[]) =>
      store.startVariant({ variant, description: `the ${variant} way`, expected, clients: ['A', 'B', 'C'], nodes: ['n1', 'n2', 'n3'], expectedMs: 2500 }),
  };
}

const lane = (frame: string, label: string) => frame.split('\n').find((l) => l.startsWith(`${label} `)) ?? '';
const history = pauseHistory();
const until = (t: number): HistoryEvent[] => history.events.filter((e) => e.t <= t && e.kind !== 'end');

describe('ScenarioRunView', () => {
  it('grows the swimlane as events arrive and logs the latest in words', async () => {
    const ui = mount();
    ui.start('unsafe', ['mutual-exclusion', 'stale-write']);
    let frame = await ui.until(/variant unsafe \(1\/2\)/);
    expect(frame).toMatch(/^gc-pause-stale-write A long pause without fencing$/m);
    expect(frame).toContain('the unsafe way · expect mutual-exclusion, stale-write');

    ui.at(500);
    for (const e of until(500)) ui.store.event(e);
    frame = await ui.until(/0\.10 s A +paused$/m);
    const early = lane(frame, 'A');
    expect(early).toMatch(/^A {3}█+░+│$/);
    expect(lane(frame, 'B')).toMatch(/^B {3} +·+│$/);
    expect(frame).toMatch(/^ {2}0\.30 s n2 kill ok$/m);

    ui.at(1700);
    for (const e of until(1700).filter((e) => e.t > 500)) ui.store.event(e);
    frame = await ui.until(/1\.70 s A +leave ok/);
    // Same axis (the expected 2.5 s), further along: A's lane only grew.
    expect(lane(frame, 'A').startsWith(early.slice(0, -1))).toBe(true);
    expect(lane(frame, 'A')).toMatch(/░w█*│$/);
    expect(lane(frame, 'n1')).toMatch(/^n1 {2}A+ ?B+│$/);
    expect(frame).toMatch(/^ {2}1\.62 s A {2}write ok \(token 33, value 1, accepted, server says not held\)$/m);
    // Only the latest five events are in words.
    expect(frame).not.toContain('0.30 s n2 kill ok');
  });

  it('keeps each finished variant with its violations and ends with the verdicts side by side', async () => {
    const ui = mount();
    ui.start('unsafe', ['mutual-exclusion', 'stale-write']);
    for (const e of history.events) ui.store.event(e);
    ui.store.finishVariant(variantRun('unsafe', history, [bothInSection, staleWrite], ['mutual-exclusion', 'stale-write']));
    let frame = await ui.until(/✓ found mutual-exclusion, stale-write, as expected/);
    expect(lane(frame, '!')).toMatch(/^! {3} +!+$/);

    ui.start('fenced', ['stale-write']);
    for (const e of history.events) ui.store.event(e);
    ui.store.finishVariant(variantRun('fenced', history, [bothInSection], ['stale-write']));
    ui.store.finish();
    frame = await ui.until(/NOT as expected/);
    expect(frame).toContain('✗ found mutual-exclusion, expected stale-write');
    const lines = frame.split('\n');
    const top = lines.findIndex((l) => /^unsafe ✓ +fenced ✗$/.test(l));
    expect(top).toBeGreaterThan(0);
    expect(lines[top + 1]).toMatch(/^expected mutual-exclusion, stale-write +expected stale-write$/);
    expect(lines[top + 2]).toMatch(/^found {4}mutual-exclusion, stale-write +found {4}mutual-exclusion$/);
    expect(lines[top + 3]).toMatch(/^✓ as expected +✗ not as expected$/);
    expect(lines[top + 4]).toMatch(/^! mutual-exclusion 1\.10-1\.70 s A and B [a-z ]+! mutual-exclusion 1\.10-1\.70 s A and B [a-z ]+$/);
    expect(frame).toContain('! stale-write at 1.62 s A');
    expect(frame).toMatch(/1 of 2 variants NOT as expected$/m);
    // The live part is gone: no cursor, no log.
    expect(frame).not.toContain('│');
  });

  it('stacks the verdicts and keeps lanes on one line on a narrow terminal', async () => {
    const ui = mount(40);
    ui.start('unsafe', ['mutual-exclusion', 'stale-write']);
    for (const e of history.events) ui.store.event(e);
    ui.store.finishVariant(variantRun('unsafe', history, [bothInSection, staleWrite], ['mutual-exclusion', 'stale-write']));
    ui.start('fenced', ['stale-write']);
    ui.store.finishVariant(variantRun('fenced', history, [], ['stale-write']));
    ui.store.finish();
    const frame = await ui.until(/variants NOT as expected/);
    const lines = frame.split('\n');
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(40);
    expect(lines.filter((l) => /^(unsafe ✓|fenced ✗)$/.test(l))).toEqual(['unsafe ✓', 'fenced ✗']);
    expect(lane(frame, 'A')).toMatch(/^A {3}█+░+w█*f$/);
  });
});

describe('scenario run store', () => {
  it('tells the view about a burst of events a few times, not once per event, and loses none', async () => {
    let now = 0;
    const store = createScenarioRunStore({ name: 's', title: 't', clock: () => now, repaintMs: 50 });
    let notified = 0;
    store.subscribe(() => notified++);
    store.startVariant({ variant: 'unsafe', description: '', expected: [], clients: ['A'], nodes: [] });
    notified = 0;
    for (let i = 0; i < 500; i++) store.event({ kind: 'note', t: i, lane: 'A', text: `renewed ${i}` });
    expect(notified).toBeLessThanOrEqual(1);
    now = 100;
    await new Promise((r) => setTimeout(r, 120));
    expect(notified).toBeLessThanOrEqual(2);
    expect(store.getSnapshot().variants[0]!.events).toHaveLength(500);
  });
});

describe('mountScenarioRunView', () => {
  it('renders on the stream it is given and leaves the verdicts on screen when closed', async () => {
    // A terminal-like stream: ink asks for its width and writes frames to it.
    const out = Object.assign(new EventEmitter(), { columns: 80, rows: 40, isTTY: true, text: '', write(chunk: string) { out.text += chunk; return true; } });
    const live = mountScenarioRunView({ stdout: out, stderr: out, name: 'gc-pause-stale-write', title: 'A long pause', variantCount: 1 });
    live.startVariant({ variant: 'unsafe', description: 'no fencing', expected: ['stale-write'], clients: ['A', 'B', 'C'], nodes: ['n1'] });
    for (const e of history.events) live.event(e);
    live.finishVariant(variantRun('unsafe', history, [staleWrite], ['stale-write']));
    await live.close();
    const plain = out.text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    expect(plain).toContain('gc-pause-stale-write A long pause');
    expect(plain).toMatch(/^A {3}█+░+w█*f/m);
    expect(plain).toContain('1 of 1 variant as expected');
  });
});

describe('the live view beside the race it draws', () => {
  // The view shares its event loop with the race, whose steps must keep within ~80 ms: every frame
  // it draws is CPU the race waits for on a busy machine. At 10-30 frames a second (the cursor's
  // 100 ms tick, events every 50 ms) a loaded machine's runs came out inconclusive; 4 a second
  // keeps the race's process mostly idle. A slow machine only draws fewer frames, never more.
  it('draws at most 4 frames a second while events arrive every 10 ms, and none inside the runner\'s callback', async () => {
    // A frame is a write that draws text (ink also writes bare escape codes around each one).
    const drawsText = (chunk: string): boolean => chunk.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trim() !== '';
    const out = Object.assign(new EventEmitter(), { columns: 100, rows: 40, isTTY: true, frames: 0, write(chunk: string) { if (drawsText(chunk)) out.frames++; return true; } });
    const live = mountScenarioRunView({ stdout: out, stderr: out, name: 'gc-pause-stale-write', title: 'A long pause', variantCount: 1 });
    try {
      live.startVariant({ variant: 'unsafe', description: 'no fencing', expected: ['stale-write'], clients: ['A', 'B', 'C'], nodes: ['n1'], expectedMs: 2000 });
      await new Promise((r) => setTimeout(r, 300)); // the first frame of the running variant is drawn
      const before = out.frames;
      const started = Date.now();
      for (let i = 0; Date.now() - started < 1000 && i < 200; i++) {
        const drawn = out.frames;
        live.event({ kind: 'note', t: i * 10, lane: 'A', text: `renewed ${i}` });
        expect(out.frames, 'a frame drawn inside the event callback').toBe(drawn);
        await new Promise((r) => setTimeout(r, 10));
      }
      const seconds = (Date.now() - started) / 1000;
      expect(out.frames - before).toBeGreaterThan(0);
      expect(out.frames - before).toBeLessThanOrEqual(Math.ceil(4 * seconds) + 1);
    } finally {
      await live.close();
    }
  });
});

describe('ScenarioRunView at 40 columns', () => {
  it('no line is wider than the terminal while the lanes grow and the log scrolls', async () => {
    const run = mount(40, 40);
    run.start('no-fencing', ['stale-write']);
    for (const e of until(2000)) run.store.event(e);
    run.at(2000);
    const frame = await run.until(/A /);
    for (const line of frame.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(40);
  });
});
