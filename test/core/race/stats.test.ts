import { describe, expect, it } from 'vitest';
import { sampleHold } from '../../../src/core/race/hold.js';
import { formatWait, jainIndex, percentile, percentiles, rateSeries, sparkline } from '../../../src/core/race/stats.js';

describe('race stats', () => {
  it('percentiles by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentiles(values)).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(percentile([], 0.5)).toBeNaN();
    expect(percentile([7], 0.99)).toBe(7);
  });

  it("Jain's index: 1 when even, 1/n when one client gets everything", () => {
    expect(jainIndex([5, 5, 5, 5])).toBe(1);
    expect(jainIndex([20, 0, 0, 0])).toBe(0.25);
    expect(jainIndex([3, 1])).toBeCloseTo(16 / 20);
    expect(jainIndex([0, 0])).toBe(1);
  });

  it('rate series puts each time in its second, late ones in the last', () => {
    expect(rateSeries([0, 10, 999, 1000, 2500, 3100], 3000)).toEqual([3, 1, 2]);
    expect(rateSeries([], 200)).toEqual([0]);
  });

  it('sparkline scales to the largest value and keeps the last values', () => {
    expect(sparkline([0, 4, 8])).toBe('▁▅█');
    expect(sparkline([0, 0])).toBe('▁▁');
    expect(sparkline([1, 2, 3, 8], 2)).toBe('▄█');
  });

  it('formats sub-10 ms waits with a decimal', () => {
    expect(formatWait(0.42)).toBe('0.4 ms');
    expect(formatWait(250)).toBe('250 ms');
    expect(formatWait(Number.NaN)).toBe('-');
  });

  it('hold distributions share the mean', () => {
    let seed = 1;
    const random = (): number => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const mean = (dist: 'fixed' | 'uniform' | 'exp'): number => {
      let sum = 0;
      for (let i = 0; i < 20_000; i++) sum += sampleHold(dist, 20, random);
      return sum / 20_000;
    };
    expect(mean('fixed')).toBe(20);
    expect(mean('uniform')).toBeCloseTo(20, 0);
    expect(mean('exp')).toBeGreaterThan(19);
    expect(mean('exp')).toBeLessThan(21);
    expect(sampleHold('exp', 20, () => 0.999999)).toBeGreaterThan(200); // the tail outlives a 200 ms lease
  });
});
