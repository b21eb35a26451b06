// The histogram buckets of wait and hold times (seconds). Prometheus estimates a quantile by
// linear interpolation inside the bucket the rank falls in, so a quantile is off by at most that
// bucket's width: 1 ms steps up to 20 ms (within 1 ms there), then steps of 2^(1/16) (4.4 % of
// the value, so within 5 %) up to 20 s, then 2^(1/2) up to 82 s. Each bucket is a series per
// group and histogram: 185 make one group's three histograms 564 series, which is why the
// group cap is small (docs/guide/export.md has the arithmetic).

const MS = 0.001;
/** Steps per doubling from 20 ms to 20.48 s, then per doubling up to 81.92 s. */
const FINE_STEPS = 16;
const FINE_OCTAVES = 10;
const COARSE_STEPS = 2;
const COARSE_OCTAVES = 2;

function buckets(): number[] {
  const out: number[] = [0.5 * MS];
  for (let ms = 1; ms <= 20; ms++) out.push(ms * MS);
  for (let i = 1; i <= FINE_OCTAVES * FINE_STEPS; i++) out.push(20 * MS * 2 ** (i / FINE_STEPS));
  const top = 20 * MS * 2 ** FINE_OCTAVES;
  for (let i = 1; i <= COARSE_OCTAVES * COARSE_STEPS; i++) out.push(top * 2 ** (i / COARSE_STEPS));
  // Rounded to a microsecond: `le` labels stay short and stable.
  return out.map((b) => Math.round(b * 1e6) / 1e6);
}

export const DURATION_BUCKETS: readonly number[] = buckets();
