import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { HoldEvent } from '../../src/core/hold-events.js';
import { displayWidth } from '../../src/core/text-layout.js';
import { AtTerminalEdge } from '../../src/ui/AtTerminalEdge.js';
import { HoldApp } from '../../src/ui/HoldApp.js';
import { HoldView } from '../../src/ui/HoldView.js';
import { createHoldStore } from '../../src/ui/hold-store.js';

// `hold` on a 40-45 column terminal: a line wider than the terminal is wrapped by the terminal,
// not by ink, so ink's repaint erases one row too few and every tick leaves a copy of the header
// behind (the screen floods). Every line of every frame fits, and so does every frame after the
// window is narrowed.

const OWNER = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1';
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);
const acquired: HoldEvent = { type: 'acquired', at: T0, mode: 'watchdog', leaseMs: 120_000, renewEveryMs: 40_000, count: 1 };

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

const store = () => createHoldStore({ key: 'orders', kind: 'reentrant', owner: OWNER, target: '127.0.0.1:16501', mode: 'watchdog' });

function frameLines(s: ReturnType<typeof store>, now: number, columns: number): string[] {
  const view = render(<HoldView state={s.getSnapshot().state} now={now} columns={columns} />);
  const frame = view.lastFrame() ?? '';
  view.unmount();
  return frame.split('\n');
}

describe('hold at 40 and 45 columns', () => {
  it('every row is one row that fits, whatever the countdown reads', () => {
    const s = store();
    s.emit(acquired);
    s.emit({ type: 'renewed', at: T0 + 40_000 } as HoldEvent);
    for (const columns of [40, 45]) {
      for (const now of [T0 + 1000, T0 + 61_000, T0 + 119_900]) {
        const lines = frameLines(s, now, columns);
        for (const line of lines) expect(displayWidth(line), `${columns}: ${line}`).toBeLessThanOrEqual(columns);
        // header, holder, lease, renewals, the notice: one row each, nothing wrapped onto a second
        expect(lines, lines.join('\n')).toHaveLength(5);
        expect(lines[2]).toMatch(/^lease +█*░* +\S+( \S+)* left of 2 m 00 s/);
      }
    }
  });

  it('a window narrowed from 100 to 45 columns repaints to fit', async () => {
    const s = store();
    let now = T0 + 1000;
    // As mountLive renders every live view: inside AtTerminalEdge.
    const view = render(
      <AtTerminalEdge>
        <HoldApp store={s} clock={() => now} tickMs={5} />
      </AtTerminalEdge>,
    );
    unmount = view.unmount;
    s.emit(acquired);
    const until = Date.now() + 3000;
    while (!(view.lastFrame() ?? '').includes('left of') && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    const stdout = view.stdout as unknown as { columns: number; emit(event: string): void; frames: string[] };
    Object.defineProperty(stdout, 'columns', { value: 45, configurable: true });
    const from = stdout.frames.length;
    stdout.emit('resize');
    now += 1000;
    // Bounded: wait until a frame at the new width has been written (or 3 s pass).
    const deadline = Date.now() + 3000;
    while (stdout.frames.slice(from).every((f) => !f.includes('left of')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const after = stdout.frames.slice(from).filter((f) => f.includes('left of'));
    expect(after.length).toBeGreaterThan(0);
    for (const frame of after) for (const line of frame.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(45);
  });
});
