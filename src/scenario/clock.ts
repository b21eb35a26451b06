// The run's clock. `speed` scales every duration of a scenario onto the wall clock:
// real ms = scenario ms / speed (speed 2 runs twice as fast, 0.5 at half speed). The history is
// recorded in scenario ms (real elapsed x speed), so its times read like the file's whatever the
// speed; what cannot be scaled (a Sentinel failover, a round trip) looks slower or faster.

export class RunClock {
  private origin = performance.now();

  constructor(readonly speed = 1) {
    if (!Number.isFinite(speed) || speed <= 0) throw new RangeError(`speed must be a positive number, got ${speed}`);
  }

  /** Starts the clock: `now()` is 0 from here. */
  start(): void {
    this.origin = performance.now();
  }

  /** Scenario ms since start, to 0.1 ms. */
  now(): number {
    return Math.round((performance.now() - this.origin) * this.speed * 10) / 10;
  }

  /** A scenario duration on the wall clock (whole ms, at least 1 for a positive input). */
  real(ms: number): number {
    if (ms <= 0) return 0;
    return Math.max(1, Math.round(ms / this.speed));
  }

  /** A wall-clock duration in scenario ms. */
  scenario(realMs: number): number {
    return Math.round(realMs * this.speed * 10) / 10;
  }

  /** Real ms until scenario time `at` (0 if it has passed). */
  untilReal(at: number): number {
    return Math.max(0, at / this.speed - (performance.now() - this.origin));
  }
}

