// The figures a race reports, computed from plain numbers: percentiles, Jain's fairness index,
// a per-second rate series and its sparkline.

import { formatDuration } from '../duration.js';

/** The p-quantile (0..1) of ascending values by nearest rank; NaN for no values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(p * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/** p50 / p95 / p99 / max of unsorted values (copied, not changed). */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = Float64Array.from(values).sort();
  const list = Array.from(sorted);
  return { count: list.length, p50: percentile(list, 0.5), p95: percentile(list, 0.95), p99: percentile(list, 0.99), max: list.at(-1) ?? Number.NaN };
}

/**
 * Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when every client got the same share, 1/n
 * when one client got everything. 1 for no acquisitions at all (nobody was favoured).
 */
export function jainIndex(counts: readonly number[]): number {
  const sum = counts.reduce((a, b) => a + b, 0);
  const sumSq = counts.reduce((a, b) => a + b * b, 0);
  return sumSq === 0 ? 1 : (sum * sum) / (counts.length * sumSq);
}

/** Events per bucket: times (ms) into `ceil(durationMs / bucketMs)` buckets; later times go in the last one. */
export function rateSeries(times: readonly number[], durationMs: number, bucketMs = 1000): number[] {
  const buckets = new Array<number>(Math.max(1, Math.ceil(durationMs / bucketMs))).fill(0);
  for (const t of times) {
    const i = Math.min(buckets.length - 1, Math.max(0, Math.floor(t / bucketMs)));
    buckets[i]! += 1;
  }
  return buckets;
}

const BARS = '▁▂▃▄▅▆▇█';

/** One block character per value, scaled to the largest; the last `width` values. */
export function sparkline(values: readonly number[], width = values.length): string {
  const shown = values.slice(Math.max(0, values.length - width));
  const max = Math.max(0, ...shown);
  if (max === 0) return BARS[0]!.repeat(shown.length);
  return shown.map((v) => BARS[Math.min(BARS.length - 1, Math.round((v / max) * (BARS.length - 1)))]).join('');
}

/** A wait or delay for people: "-" for none, "0.4 ms" below 10 ms (sub-ms waits are common), else like formatDuration. */
export function formatWait(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  return formatDuration(ms);
}
