import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { RaceLiveState } from '../../src/core/race/live.js';
import { checkRacePlan } from '../../src/core/race/plan.js';
import { RaceTally } from '../../src/core/race/tally.js';
import { displayWidth } from '../../src/core/text-layout.js';
import type { HistoryEvent } from '../../src/core/scenario/history.js';
import { RaceApp } from '../../src/ui/RaceApp.js';
import { RaceView } from '../../src/ui/RaceView.js';

const plan = checkRacePlan({
  keys: ['orders'],
  kind: 'fair',
  clients: 3,
  procs: 0,
  durationMs: 20_000,
  leaseMs: 200,
  holdMs: 20,
  holdDist: 'fixed',
  waitMs: 1000,
  release: 'safe',
  renew: true,
  chaos: 'pause',
  target: { type: 'fresh' },
});

let id = 0;
/** A tally fed like a race: c1 takes the lock 6 times, c2 twice, c3 never and waits; c2 holds now (Jain 64/120). */
function tally(): RaceTally {
  const t = new RaceTally(['c1', 'c2', 'c3'].map((name) => ({ name, key: 'orders' })));
  const add = (e: Omit<HistoryEvent & { kind: 'op' }, 'kind'>): void => t.add({ kind: 'op', ...e } as HistoryEvent);
  let at = 0;
  const cycle = (client: string, release = true): void => {
    const n = ++id;
    add({ t: at, client, op: 'acquire', phase: 'invoke', id: n });
    add({ t: at + 4, client, op: 'acquire', phase: 'ok', id: n });
    if (release) add({ t: at + 30, client, op: 'release', phase: 'invoke', id: ++id });
    at += 400;
  };
  for (let i = 0; i < 6; i++) cycle('c1');
  cycle('c2');
  cycle('c2', false);
  add({ t: at, client: 'c3', op: 'acquire', phase: 'invoke', id: ++id });
  t.add({ kind: 'fault', t: 2000, node: 'c1', verb: 'pause', phase: 'invoke', id: 900 });
  t.add({ kind: 'fault', t: 2420, node: 'c1', verb: 'pause', phase: 'ok', id: 900, detail: 'froze c1 for 420 ms' });
  return t;
}

const state = (violations: RaceLiveState['violations'] = []): RaceLiveState => ({
  plan,
  target: 'sandbox race-1 (single, started for this race)',
  snapshot: tally().snapshot(3500),
  violations,
});

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

describe('RaceView', () => {
  it('shows throughput, waits, fairness with shares, holder and queue, faults and a clean verdict so far', () => {
    const view = render(<RaceView state={state()} columns={100} />);
    unmount = view.unmount;
    const frame = view.lastFrame() ?? '';
    expect(frame).toContain('race orders');
    expect(frame).toContain('fair · 3 clients · sandbox race-1');
    expect(frame).toContain('3.5 s / 20.0 s');
    expect(frame).toMatch(/acquisitions\s+8 · 2\.3\/s \S+/);
    expect(frame).toMatch(/wait\s+p50 4\.0 ms · p95 4\.0 ms · p99 4\.0 ms\s+timeouts 0 · errors 0/);
    expect(frame).toMatch(/fairness\s+0\.53 \(Jain, 1 = even\)/);
    expect(frame).toMatch(/c1\s+75\.0% █+/);
    // Three clients fit: every share is listed, the one that never got it too.
    expect(frame).toMatch(/c2\s+25\.0% █+/);
    expect(frame).toMatch(/c3\s+0\.0%$/m);
    expect(frame).toMatch(/holder\s+c2 · queue 1 waiting/);
    expect(frame).toContain('2.0 s pause c1: froze c1 for 420 ms');
    expect(frame).toMatch(/violations\s+none so far/);
  });

  it('keeps its header to one row when the terminal is narrow: the plan is cut, the key and the clock stay', () => {
    // A header that wrapped only in some repaints (the clock reading "850 ms", not "3.1 s") changed
    // the frame's height, and a terminal kept a row of the old frame above the new one.
    const view = render(<RaceView state={state()} columns={60} />);
    unmount = view.unmount;
    const [header, next] = (view.lastFrame() ?? '').split('\n');
    expect(header).toMatch(/^race orders {2}fair · 3 clients · .*… {2}3\.5 s \/ 20\.0 s$/);
    expect(next).toMatch(/^acquisitions/);
  });

  it('cuts a long fault or violation at the edge instead of wrapping it: every row stays one row', () => {
    const v = { kind: 'mutual-exclusion' as const, clients: ['c1', 'c2'], from: 2100, to: 2400, key: 'orders', message: 'c1 and c2 were both in the critical section for 300 ms, from 2.10 s to 2.40 s, while c1 was paused' };
    const view = render(<Box width={80}><RaceView state={state([v])} columns={80} /></Box>);
    unmount = view.unmount;
    const lines = (view.lastFrame() ?? '').split('\n');
    expect(lines.find((l) => l.includes('mutual-exclusion'))).toMatch(/^ +mutual-exclusion: c1 and c2 were both in the critical section.*…$/);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
  });

  it('lists violations as they are found', () => {
    const v = { kind: 'mutual-exclusion' as const, clients: ['c1', 'c2'], from: 2100, to: 2400, key: 'orders', message: 'c1 and c2 were both in the critical section for 300 ms, from 2.10 s to 2.40 s, while c1 was paused' };
    const view = render(<RaceView state={state([v])} columns={200} />);
    unmount = view.unmount;
    const frame = view.lastFrame() ?? '';
    expect(frame).toMatch(/violations\s+1/);
    expect(frame).toContain('mutual-exclusion: c1 and c2 were both in the critical section for 300 ms');
  });
});

describe('RaceApp', () => {
  it('repaints from the source it polls', async () => {
    let current = state();
    const view = render(<RaceApp source={() => current} tickMs={5} />);
    unmount = view.unmount;
    expect(view.lastFrame()).toMatch(/violations\s+none so far/);
    current = { ...current, violations: [{ kind: 'lost-update', clients: ['c1'], from: 0, to: 1, key: 'orders', message: 'the counter ended at 7 after 8 accepted increments (1 lost)' }] };
    const until = Date.now() + 2000;
    while (!/violations\s+1/.test(view.lastFrame() ?? '') && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(view.lastFrame()).toContain('lost-update: the counter ended at 7');
  });
});

describe('RaceView at 40 columns', () => {
  it('no line is wider than the terminal (a wider one is wrapped by the terminal and leaves debris on repaint)', () => {
    for (const COLS of [40, 60]) {
      // ink's root is as wide as the terminal: a box of that width stands in for it.
      const view = render(<Box width={COLS}><RaceView state={state([{ kind: 'overlap', message: 'c1 and c2 both held orders from 1.2 s to 1.4 s' } as never])} columns={COLS} /></Box>);
      const lines = (view.lastFrame() ?? '').split('\n');
      view.unmount();
      for (const line of lines) expect(displayWidth(line), `${COLS}: ${line}`).toBeLessThanOrEqual(COLS);
    }
  });
});
