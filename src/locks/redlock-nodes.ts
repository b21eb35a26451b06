import { CliError, UnreachableError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import type { Connection, RedisClient } from '../redis/connection.js';
import { toCliError } from '../redis/errors.js';

// The arithmetic and fan-out of multi-node Redlock, kept apart from the protocol so the formulas
// can be checked on their own.

/** Votes needed out of n independent primaries: a strict majority. */
export function quorumOf(n: number): number {
  return Math.floor(n / 2) + 1;
}

/** node-redlock's clock-drift allowance: 1 % of the lease, plus 2 ms for Redis's 1 ms expiry precision. */
export function redlockDrift(leaseMs: number, driftFactor = 0.01): number {
  return Math.round(driftFactor * leaseMs) + 2;
}

/** How long a lock taken in `elapsedMs` is safe to use: lease - elapsed - drift (not safe at <= 0). */
export function redlockValidity(leaseMs: number, elapsedMs: number): number {
  return leaseMs - elapsedMs - redlockDrift(leaseMs);
}

/**
 * How long one node may take before its vote counts as an error. The Redlock paper asks for a
 * timeout small next to the lease so that a hung node cannot eat the validity: a tenth of the
 * lease, at least 100 ms (a loaded loopback) and at most 1 s.
 */
export function nodeTimeoutMs(leaseMs: number | undefined): number {
  if (leaseMs === undefined) return 1000;
  return Math.min(1000, Math.max(100, Math.floor(leaseMs / 10)));
}

export type NodeOutcome<T> = { readonly node: string; readonly ms: number } & (
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: CliError }
);

/**
 * Runs `op` on every node in parallel; each answer (or error, or timeout) is timed and kept in node
 * order. One timer covers the whole fan-out (a node still silent when it fires counts as an error)
 * and each reply settles its slot directly: no per-node race, timer or async wrapper, which on a
 * busy loop cost more than the round trips themselves.
 */
export function onEveryNode<T>(
  nodes: readonly Connection[],
  timeoutMs: number,
  op: (client: RedisClient) => Promise<T>,
): Promise<NodeOutcome<T>[]> {
  return new Promise((resolve) => {
    const outcomes = new Array<NodeOutcome<T> | undefined>(nodes.length);
    let pending = nodes.length;
    const started = performance.now();
    const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
    let timer: NodeJS.Timeout | undefined;
    const settle = (i: number, outcome: NodeOutcome<T>): void => {
      if (outcomes[i] !== undefined) return;
      outcomes[i] = outcome;
      if (--pending > 0) return;
      clearTimeout(timer);
      resolve(outcomes as NodeOutcome<T>[]);
    };
    nodes.forEach((conn, i) => {
      const node = conn.label;
      if (conn.offline) return settle(i, { node, ms: 0, ok: false, error: conn.offline });
      op(conn.client).then(
        (value) => settle(i, { node, ms: elapsed(), ok: true, value }),
        (err: unknown) => settle(i, { node, ms: elapsed(), ok: false, error: toCliError(err, node) }),
      );
    });
    if (pending === 0) return resolve(outcomes as NodeOutcome<T>[]);
    timer = setTimeout(() => {
      nodes.forEach((conn, i) => {
        const error = new UnreachableError(`no answer from ${conn.label} within ${timeoutMs} ms`);
        settle(i, { node: conn.label, ms: elapsed(), ok: false, error });
      });
    }, timeoutMs);
  });
}

/**
 * node-redlock's quorum rule for release and extend: a majority of "yes" decides yes, a majority
 * of "no" decides no. When failed nodes leave neither side a majority the answer is unknown, and
 * we say so with the nodes' errors instead of guessing "not owner".
 */
export function decideQuorum(outcomes: readonly NodeOutcome<boolean>[], what: string): boolean {
  const quorum = quorumOf(outcomes.length);
  const yes = outcomes.filter((o) => o.ok && o.value).length;
  const no = outcomes.filter((o) => o.ok && !o.value).length;
  if (yes >= quorum) return true;
  if (no >= quorum) return false;
  throw nodeFailures(outcomes, `${what}: no majority either way (${yes} yes, ${no} no of ${outcomes.length}, quorum ${quorum})`);
}

/** One error naming every failed node; the exit code of the first failure (3 when a node is unreachable). */
export function nodeFailures(outcomes: readonly NodeOutcome<unknown>[], summary: string): CliError {
  const failed = outcomes.flatMap((o) => (o.ok ? [] : [o]));
  const details = failed.map((o) => `${o.node}: ${o.error.message}`).join('; ');
  return new CliError(`${summary}; ${details}`, failed[0]?.error.exitCode ?? ExitCode.unexpected);
}
