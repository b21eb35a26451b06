import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backoffMs, createPoller, MIN_INTERVAL_MS, type Poller, type PollState } from '../../src/core/poller.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A fetch whose answers the test scripts: each call takes `takesMs` and then resolves or rejects. */
function scriptedFetch(script: ({ fail?: string; takesMs?: number } | undefined)[] = []) {
  const calls: number[] = [];
  let active = 0;
  let maxActive = 0;
  const fetch = async (): Promise<number> => {
    const n = calls.length;
    calls.push(Date.now());
    active += 1;
    maxActive = Math.max(maxActive, active);
    const step = script[n] ?? {};
    try {
      const takes = step.takesMs ?? 10;
      if (takes > 0) await new Promise((r) => setTimeout(r, takes));
      if (step.fail) throw new Error(step.fail);
      return n;
    } finally {
      active -= 1;
    }
  };
  return { fetch, calls, maxActive: () => maxActive };
}

function run(fetch: () => Promise<number>, intervalMs = 1000, timeoutMs?: number) {
  const states: PollState<number>[] = [];
  const poller: Poller = createPoller({ fetch, intervalMs, timeoutMs, onState: (s) => states.push(s) });
  poller.start();
  return { poller, states, types: () => states.map((s) => s.type) };
}

describe('poller', () => {
  it('ticks immediately, then once per interval measured start to start', async () => {
    const f = scriptedFetch([{ takesMs: 300 }, { takesMs: 300 }, { takesMs: 300 }]);
    const { states, poller } = run(f.fetch);
    await vi.advanceTimersByTimeAsync(0);
    expect(f.calls).toEqual([0]);
    await vi.advanceTimersByTimeAsync(2500);
    expect(f.calls).toEqual([0, 1000, 2000]);
    expect(states.slice(0, 2)).toEqual([
      { type: 'ok', at: 0, tookMs: 300, tick: 1, snapshot: 0 },
      { type: 'ok', at: 1000, tookMs: 300, tick: 2, snapshot: 1 },
    ]);
    poller.stop();
  });

  it('never overlaps: a read slower than the interval delays the next one instead of running beside it', async () => {
    const f = scriptedFetch([{ takesMs: 250 }, { takesMs: 250 }, { takesMs: 250 }, { takesMs: 250 }]);
    const { poller } = run(f.fetch, 200);
    await vi.advanceTimersByTimeAsync(1400);
    expect(f.maxActive()).toBe(1);
    // Each starts half an interval after the previous ended, not 200 ms after it started.
    expect(f.calls.slice(0, 4)).toEqual([0, 350, 700, 1050]);
    poller.stop();
  });

  it('raises an interval below the floor to MIN_INTERVAL_MS', async () => {
    const f = scriptedFetch([{ takesMs: 0 }, { takesMs: 0 }, { takesMs: 0 }]);
    const { poller } = run(f.fetch, 5);
    await vi.advanceTimersByTimeAsync(MIN_INTERVAL_MS * 2 + 50);
    expect(f.calls).toEqual([0, MIN_INTERVAL_MS, MIN_INTERVAL_MS * 2]);
    poller.stop();
  });

  it('backs off 1 s, 2 s, 4 s on errors, capped, and recovers at the normal interval', async () => {
    const down = { fail: 'Connection is closed.', takesMs: 0 };
    const f = scriptedFetch([{ takesMs: 0 }, down, down, down, down, down, { takesMs: 0 }, { takesMs: 0 }]);
    const { states, poller } = run(f.fetch, 500);
    await vi.advanceTimersByTimeAsync(500 + 1000 + 2000 + 4000 + 8000 + 8000 + 500);
    expect(f.calls).toEqual([0, 500, 1500, 3500, 7500, 15_500, 23_500, 24_000]);
    const retrying = states.filter((s) => s.type === 'retrying');
    expect(retrying.map((s) => s.retryInMs)).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(retrying[0]).toMatchObject({ error: 'Connection is closed.', failures: 1, at: 500 });
    expect(states.at(-1)).toMatchObject({ type: 'ok', tick: 3, at: 24_000 });
    // A later error starts the backoff from the beginning again.
    expect(backoffMs(1)).toBe(1000);
    poller.stop();
  });

  it('gives up on a read that does not answer in time and retries after the backoff', async () => {
    const f = scriptedFetch([{ takesMs: 60_000 }, { takesMs: 5 }]);
    const { states, poller } = run(f.fetch, 1000, 3000);
    await vi.advanceTimersByTimeAsync(3000);
    expect(states).toEqual([{ type: 'retrying', at: 3000, error: 'no answer within 3 s', retryInMs: 1000, failures: 1 }]);
    await vi.advanceTimersByTimeAsync(1005);
    expect(f.calls).toEqual([0, 4000]);
    expect(states.at(-1)).toMatchObject({ type: 'ok', snapshot: 1 });
    // The abandoned read answering late changes nothing.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(states.filter((s) => s.type === 'ok' && s.snapshot === 0)).toEqual([]);
    poller.stop();
  });

  it('pauses: no reads while paused, the answer of a read in flight is dropped, resume reads at once', async () => {
    const f = scriptedFetch([{ takesMs: 10 }, { takesMs: 200 }, { takesMs: 10 }]);
    const { states, types, poller } = run(f.fetch);
    await vi.advanceTimersByTimeAsync(1100); // second read in flight
    expect(poller.togglePause()).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(f.calls).toEqual([0, 1000]);
    expect(types()).toEqual(['ok', 'paused']);
    expect(poller.togglePause()).toBe(false);
    await vi.advanceTimersByTimeAsync(10);
    expect(f.calls).toEqual([0, 1000, 11_100]);
    expect(types()).toEqual(['ok', 'paused', 'resumed', 'ok']);
    expect(states.at(-1)).toMatchObject({ type: 'ok', tick: 2, snapshot: 2 });
    poller.stop();
  });

  it('resumed while a read is still out: no second read beside it, polling goes on afterwards', async () => {
    const f = scriptedFetch([{ takesMs: 10 }, { takesMs: 500 }, { takesMs: 10 }, { takesMs: 10 }]);
    const { poller } = run(f.fetch);
    await vi.advanceTimersByTimeAsync(1100);
    poller.pause();
    poller.resume();
    await vi.advanceTimersByTimeAsync(2000);
    expect(f.maxActive()).toBe(1);
    expect(f.calls).toEqual([0, 1000, 1500, 2500]);
    poller.stop();
  });

  it('refresh reads at once instead of waiting out a backoff, but never beside a read in flight or while paused', async () => {
    const down = { fail: 'Connection is closed.', takesMs: 0 };
    const f = scriptedFetch([{ takesMs: 0 }, down, down, { takesMs: 100 }, { takesMs: 0 }]);
    const { poller, states } = run(f.fetch);
    await vi.advanceTimersByTimeAsync(2500); // reads at 0, 1000 (fails), 2000 (fails, next try at 4000)
    expect(f.calls).toEqual([0, 1000, 2000]);
    poller.refresh();
    await vi.advanceTimersByTimeAsync(0);
    expect(f.calls).toEqual([0, 1000, 2000, 2500]);
    poller.refresh(); // that read is still out
    await vi.advanceTimersByTimeAsync(100);
    expect(f.calls).toHaveLength(4);
    expect(states.at(-1)).toMatchObject({ type: 'ok', at: 2500 });
    poller.pause();
    poller.refresh();
    await vi.advanceTimersByTimeAsync(5000);
    expect(f.calls).toHaveLength(4);
    poller.stop();
  });

  it('stops for good: nothing is reported or read afterwards', async () => {
    const f = scriptedFetch([{ takesMs: 10 }, { takesMs: 100 }]);
    const { states, poller } = run(f.fetch);
    await vi.advanceTimersByTimeAsync(1050);
    poller.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(f.calls).toEqual([0, 1000]);
    expect(states).toHaveLength(1);
    poller.resume();
    poller.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(f.calls).toHaveLength(2);
  });
});
