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

function withTimeout<T>(work: Promise<T>, ms: number, node: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UnreachableError(`no answer from ${node} within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `op` on every node in parallel; each answer (or error, or timeout) is timed and kept in node order. */
export function onEveryNode<T>(
  nodes: readonly Connection[],
  timeoutMs: number,
  op: (client: RedisClient) => Promise<T>,
): Promise<NodeOutcome<T>[]> {
  return Promise.all(
    nodes.map(async (conn): Promise<NodeOutcome<T>> => {
      const started = performance.now();
      const ms = (): number => Math.round((performance.now() - started) * 10) / 10;
      if (conn.offline) return { node: conn.label, ms: 0, ok: false, error: conn.offline };
      try {
        const value = await withTimeout(op(conn.client), timeoutMs, conn.label);
        return { node: conn.label, ms: ms(), ok: true, value };
      } catch (err) {
        return { node: conn.label, ms: ms(), ok: false, error: toCliError(err, conn.label) };
      }
    }),
  );
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
