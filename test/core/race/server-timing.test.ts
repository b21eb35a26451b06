import { describe, expect, it } from 'vitest';
import { serverHoldMs, serverWaitMs } from '../../../src/core/race/server-timing.js';
import { RaceTally } from '../../../src/core/race/tally.js';
import type { HistoryEvent } from '../../../src/core/scenario/history.js';

// The race's waits and holds on the server's clock, defined as the exporter measures them.

describe('server-timed waits and holds', () => {
  it('a wait runs from the first attempt to the one that took the lock', () => {
    expect(serverWaitMs([1000.5, 1100, 1250.25])).toBe(249.75);
    expect(serverWaitMs([1000])).toBe(0);
    expect(serverWaitMs([])).toBeUndefined();
    expect(serverWaitMs([Number.NaN, 1000])).toBeUndefined();
  });

  it('a hold ends at the release, or at the lease end after the last renewal when the lease ran out first', () => {
    const hold = { acquiredAt: 1000, leaseFrom: 1200, leaseMs: 300 };
    expect(serverHoldMs(hold, 1250, true)).toBe(250);
    // Released late, found gone: the lease ran out 300 ms after the last renewal.
    expect(serverHoldMs(hold, 2100, false)).toBe(500);
    // Found gone before its lease end (deleted by someone else): the release bounds it.
    expect(serverHoldMs(hold, 1400, false)).toBe(400);
    expect(serverHoldMs(hold, Number.NaN, true)).toBeUndefined();
  });

  it('the tally reports their percentiles beside the client-timed waits, and none when nothing was timed', () => {
    const tally = new RaceTally([{ name: 'A', key: 'k' }]);
    const events: HistoryEvent[] = [
      { kind: 'op', t: 0, client: 'A', op: 'acquire', phase: 'invoke', id: 1 },
      { kind: 'op', t: 9, client: 'A', op: 'acquire', phase: 'ok', id: 1, serverWaitMs: 7 },
      { kind: 'op', t: 30, client: 'A', op: 'release', phase: 'invoke', id: 2 },
      { kind: 'op', t: 33, client: 'A', op: 'release', phase: 'ok', id: 2, detail: 'released', serverHoldMs: 22 },
    ];
    const untimed = new RaceTally([{ name: 'A', key: 'k' }]);
    for (const e of events) {
      tally.add(e);
      const { serverWaitMs: _w, serverHoldMs: _h, ...plain } = e as Extract<HistoryEvent, { kind: 'op' }>;
      untimed.add(plain);
    }
    const s = tally.snapshot(40);
    expect(s.waits.p50).toBe(9);
    expect(s.serverTimed).toEqual({
      waits: { count: 1, p50: 7, p95: 7, p99: 7, max: 7 },
      holds: { count: 1, p50: 22, p95: 22, p99: 22, max: 22 },
    });
    expect(untimed.snapshot(40).serverTimed).toBeUndefined();
  });
});
