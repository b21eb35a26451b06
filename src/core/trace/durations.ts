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

  /** A duration in ms (negative ones, a clock step, count as 0). */
  add(ms: number): void {
    this.histogram.recordValue(Math.max(0, Math.round(ms * 1000)));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  /** p50 and p99 in ms (to the microsecond); undefined before the first duration. */
  percentiles(): DurationPercentiles | undefined {
    if (this.histogram.totalCount === 0) return undefined;
    const at = (p: number) => this.histogram.getValueAtPercentile(p) / 1000;
    return { p50: at(50), p99: at(99) };
  }
}
