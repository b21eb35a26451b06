// One clock for every client of a race, across processes: CLOCK_MONOTONIC (process.hrtime) is
// the same clock for every process on the machine, so a worker's "left the section at 812.4 ms"
// and another worker's "entered at 812.9 ms" compare correctly. Date.now() could step, and
// performance.now() counts from each process's own start.

/** ms since `originNs` (a process.hrtime.bigint() reading), to the microsecond. */
export type RaceClock = () => number;

export function raceClock(originNs: bigint): RaceClock {
  return () => Number((process.hrtime.bigint() - originNs) / 1000n) / 1000;
}

/** The origin as it crosses IPC (bigint is not JSON). */
export const originToText = (origin: bigint): string => origin.toString();
export const originFromText = (text: string): bigint => BigInt(text);
