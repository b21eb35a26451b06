// Redlock's arithmetic, shared by the lock (src/locks/redlock-nodes.ts) and the trace's quorum
// view (core/trace/quorum.ts): what a majority is, and how much of a lease the algorithm sets
// aside for the nodes' clocks drifting apart.

/** Votes needed out of n independent primaries: a strict majority. */
export function quorumOf(n: number): number {
  return Math.floor(n / 2) + 1;
}

/** node-redlock's clock-drift allowance: 1 % of the lease, plus 2 ms for Redis's 1 ms expiry precision. */
export function redlockDrift(leaseMs: number, driftFactor = 0.01): number {
  return Math.round(driftFactor * leaseMs) + 2;
}
