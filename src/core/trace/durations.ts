// Streaming percentiles of durations (hold and wait times) in constant memory per figure: an HDR
// histogram (hdr-histogram-js), which keeps counts per value bucket, never the samples, so a
// trace of any length reports exact-to-the-precision p50 / p99 over every sample it saw.
//
// Precision: 2 significant digits, so a reported percentile is within 1 % of the true one
// (buckets are at most 1/128 of their value wide), at microsecond resolution. Memory per figure
// grows only with the range of values seen (a few kB for microseconds to an hour), not the count.

import { build, type Histogram } from 'hdr-histogram-js';

/** Significant decimal digits the histogram keeps: 2 = within 1 %. */
export const DURATION_DIGITS = 2;

export interface DurationPercentiles {
  readonly p50: number;
  readonly p99: number;
}

/** Durations in ms, folded in one at a time; percentiles over all of them. */
export class DurationHistogram {
  // 32-bit counts (2^31 samples per bucket), growing to the largest value seen.
  private readonly histogram: Histogram = build({
    bitBucketSize: 32,
    autoResize: true,
    numberOfSignificantValueDigits: DURATION_DIGITS,
  });

  /**
   * A run of equal values not yet recorded: a value's bucket costs a log2, a pow and a division to
   * find, and runs are common (every uncontended acquisition waits 0 µs, a steady job holds for the
   * same time), so a run is recorded once with its count (recordValueWithCount) when it ends.
   */
  private runValue = 0;
  private runCount = 0;
  /** Records made into the histogram (each finds its bucket): what the runs save, for the tests. */
  recordings = 0;

  /** A duration in ms (negative ones, a clock step, count as 0). */
  add(ms: number): void {
    const us = Math.max(0, Math.round(ms * 1000));
    if (us === this.runValue) {
      this.runCount++;
      return;
    }
    this.flush();
    this.runValue = us;
    this.runCount = 1;
  }

  get count(): number {
    return this.histogram.totalCount + this.runCount;
  }

  /** p50 and p99 in ms (to the microsecond); undefined before the first duration. */
  percentiles(): DurationPercentiles | undefined {
    this.flush();
    if (this.histogram.totalCount === 0) return undefined;
    const at = (p: number) => this.histogram.getValueAtPercentile(p) / 1000;
    return { p50: at(50), p99: at(99) };
  }

  private flush(): void {
    if (this.runCount === 0) return;
    this.histogram.recordValueWithCount(this.runValue, this.runCount);
    this.recordings++;
    this.runCount = 0;
  }
}
