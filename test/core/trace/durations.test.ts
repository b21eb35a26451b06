import { build } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { DurationHistogram } from '../../../src/core/trace/durations.js';
import { TraceSummary } from '../../../src/core/trace/summary.js';

// The summary's hold and wait percentiles come from a streaming histogram over every sample,
// within 1 % (2 significant digits). A sample of them, as the summary once kept (10,000 per
// figure), misses a sparse tail: the p99 of this trace came out as 2270 ms instead of 1000 ms.

describe('trace summary percentiles', () => {
  it('p99 of 100,000 holds with a sparse tail is within 1 % of the exact one', () => {
    const summary = new TraceSummary();
    // 98,900 holds of 1 ms and a tail of 1,100 holds of 10, 20, ... 11,000 ms, spread over the trace:
    // the exact p99 (nearest rank 99,000) is the tail's 100th, 1,000 ms.
    for (let i = 0; i < 100_000; i++) {
      const t = i * 20_000;
      const hold = i % 90 === 0 && i / 90 < 1100 ? 10 * (i / 90 + 1) : 1;
      summary.push({ kind: 'acquired', t, lock: 'x', owner: `o${i}`, count: 1 });
      summary.push({ kind: 'released', t: t + hold, lock: 'x', owner: `o${i}`, count: 0 });
    }
    const { holdMs } = summary.locks([])[0]!;
    expect(holdMs!.p50).toBeGreaterThanOrEqual(1);
    expect(holdMs!.p50).toBeLessThan(1.01);
    expect(holdMs!.p99).toBeGreaterThanOrEqual(1000);
    expect(holdMs!.p99).toBeLessThan(1010);
  });

  it('keeps microseconds, counts every sample, and has no percentiles before the first', () => {
    const h = new DurationHistogram();
    expect(h.percentiles()).toBeUndefined();
    for (let i = 0; i < 1000; i++) h.add(0.25);
    h.add(-3); // a clock step: counted as 0
    expect(h.count).toBe(1001);
    expect(h.percentiles()).toEqual({ p50: 0.25, p99: 0.25 });
  });

  it('records a run of equal durations once, with the same percentiles as one record per sample', () => {
    // Every uncontended acquisition waits 0 µs: 10,000 of them find their bucket once.
    const waits = new DurationHistogram();
    for (let i = 0; i < 10_000; i++) waits.add(0);
    expect(waits.count).toBe(10_000);
    expect(waits.percentiles()).toEqual({ p50: 0, p99: 0 });
    expect(waits.recordings).toBe(1);

    // Runs of every length between changes of value, against the library fed one sample at a time.
    const h = new DurationHistogram();
    const exact = build({ bitBucketSize: 32, autoResize: true, numberOfSignificantValueDigits: 2 });
    let seed = 7;
    for (let i = 0; i < 5_000; i++) {
      seed = (seed * 48271) % 2147483647;
      const ms = seed % 3 === 0 ? 1 : (seed % 1000) / 8;
      h.add(ms);
      exact.recordValue(Math.round(ms * 1000));
    }
    expect(h.count).toBe(5_000);
    expect(h.percentiles()).toEqual({ p50: exact.getValueAtPercentile(50) / 1000, p99: exact.getValueAtPercentile(99) / 1000 });
    expect(h.recordings).toBeLessThan(5_000);
  });
});
