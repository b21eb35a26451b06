import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/core/sleep.js';

// The one abortable sleep: waits, or settles early on abort (resolving: callers check the
// signal), and leaves no listener on a signal that outlives it (the REPL's lives for the session).

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

describe('sleep', () => {
  it('resolves after the time has passed, and a negative time counts as none', async () => {
    const started = performance.now();
    await sleep(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    await expect(sleep(-5)).resolves.toBeUndefined();
  });

  it('settles early when the signal aborts, before a timer that would have come first', async () => {
    const controller = new AbortController();
    const order: string[] = [];
    const long = sleep(60_000, controller.signal).then(() => order.push('aborted sleep'));
    const short = sleep(50).then(() => order.push('50 ms'));
    expect(listeners(controller.signal)).toBe(1);
    controller.abort();
    await Promise.all([long, short]);
    expect(order).toEqual(['aborted sleep', '50 ms']);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('leaves no listener behind when the time passes first', async () => {
    const controller = new AbortController();
    await sleep(1, controller.signal);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('resolves at once on a signal already aborted', async () => {
    const order: string[] = [];
    await Promise.all([sleep(10_000, AbortSignal.abort()).then(() => order.push('aborted')), sleep(20).then(() => order.push('20 ms'))]);
    expect(order).toEqual(['aborted', '20 ms']);
  });
});
