import { CliError, UnreachableError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import type { Connection, RedisClient } from '../redis/connection.js';
import { toCliError } from '../redis/errors.js';
import { quorumOf, redlockDrift } from '../core/redlock-quorum.js';

// The arithmetic and fan-out of multi-node Redlock, kept apart from the protocol so the formulas
// can be checked on their own (the majority and the drift allowance live in core, which the
// trace's quorum view shares).

export { quorumOf, redlockDrift };

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

/** What a fan-out knew when it could decide, and every outcome once all nodes have answered. */
export interface Decision<T> {
  /** In node order; undefined for a node that had not answered yet. */
  readonly outcomes: readonly (NodeOutcome<T> | undefined)[];
  /** Every outcome: an answer, an error, or a timeout. */
  readonly all: Promise<NodeOutcome<T>[]>;
}

/**
 * Runs `op` on every node in parallel and resolves as soon as `decided` says the answers so far
 * settle the question (a majority one way), as node-redlock does: the slowest node of a busy
 * machine does not hold up a decision it cannot change. The rest keep going; `all` has them.
 * One timer covers the fan-out (a node still silent when it fires counts as an error), and each
 * reply settles its slot directly.
 */
export function fanOut<T>(
  nodes: readonly Connection[],
  timeoutMs: number,
  op: (client: RedisClient) => Promise<T>,
  decided: (outcomes: readonly (NodeOutcome<T> | undefined)[]) => boolean,
): Promise<Decision<T>> {
  return new Promise((resolveDecision) => {
    const outcomes = new Array<NodeOutcome<T> | undefined>(nodes.length);
    let resolveAll!: (all: NodeOutcome<T>[]) => void;
    const all = new Promise<NodeOutcome<T>[]>((resolve) => (resolveAll = resolve));
    let pending = nodes.length;
    let done = false;
    const started = performance.now();
    const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
    let timer: NodeJS.Timeout | undefined;
    const settle = (i: number, outcome: NodeOutcome<T>): void => {
      if (outcomes[i] !== undefined) return;
      outcomes[i] = outcome;
      pending -= 1;
      if (!done && (pending === 0 || decided(outcomes))) {
        done = true;
        resolveDecision({ outcomes: [...outcomes], all });
      }
      if (pending > 0) return;
      clearTimeout(timer);
      resolveAll(outcomes as NodeOutcome<T>[]);
    };
    nodes.forEach((conn, i) => {
      const node = conn.label;
      if (conn.offline) return settle(i, { node, ms: 0, ok: false, error: conn.offline });
      op(conn.client).then(
        (value) => settle(i, { node, ms: elapsed(), ok: true, value }),
        (err: unknown) => settle(i, { node, ms: elapsed(), ok: false, error: toCliError(err, node) }),
      );
    });
    if (nodes.length === 0) return resolveDecision({ outcomes: [], all: Promise.resolve([]) });
    if (pending === 0) return;
    timer = setTimeout(() => {
      nodes.forEach((conn, i) => {
        const error = new UnreachableError(`no answer from ${conn.label} within ${timeoutMs} ms`);
        settle(i, { node: conn.label, ms: elapsed(), ok: false, error });
      });
    }, timeoutMs);
  });
}

/** Runs `op` on every node in parallel; each answer (or error, or timeout) is timed and kept in node order. */
export async function onEveryNode<T>(
  nodes: readonly Connection[],
  timeoutMs: number,
  op: (client: RedisClient) => Promise<T>,
): Promise<NodeOutcome<T>[]> {
  return (await fanOut(nodes, timeoutMs, op, () => false)).all;
}

const countTrue = (outcomes: readonly (NodeOutcome<boolean> | undefined)[], value: boolean): number =>
  outcomes.filter((o) => o?.ok === true && o.value === value).length;

/** A yes/no question to every node, answered as soon as a majority agrees (see decideQuorum). */
export async function askMajority(
  nodes: readonly Connection[],
  timeoutMs: number,
  op: (client: RedisClient) => Promise<boolean>,
  what: string,
): Promise<boolean> {
  const quorum = quorumOf(nodes.length);
  const decision = await fanOut(nodes, timeoutMs, op, (o) => countTrue(o, true) >= quorum || countTrue(o, false) >= quorum);
  return decideQuorum(decision.outcomes, what);
}

/**
 * node-redlock's quorum rule for release and extend: a majority of "yes" decides yes, a majority
 * of "no" decides no. When failed nodes leave neither side a majority the answer is unknown, and
 * we say so with the nodes' errors instead of guessing "not owner".
 */
export function decideQuorum(outcomes: readonly (NodeOutcome<boolean> | undefined)[], what: string): boolean {
  const quorum = quorumOf(outcomes.length);
  const yes = countTrue(outcomes, true);
  const no = countTrue(outcomes, false);
  if (yes >= quorum) return true;
  if (no >= quorum) return false;
  throw nodeFailures(outcomes, `${what}: no majority either way (${yes} yes, ${no} no of ${outcomes.length}, quorum ${quorum})`);
}

/** One error naming every failed node; the exit code of the first failure (3 when a node is unreachable). */
export function nodeFailures(outcomes: readonly (NodeOutcome<unknown> | undefined)[], summary: string): CliError {
  const failed = outcomes.flatMap((o) => (o === undefined || o.ok ? [] : [o]));
  const details = failed.map((o) => `${o.node}: ${o.error.message}`).join('; ');
  return new CliError(`${summary}; ${details}`, failed[0]?.error.exitCode ?? ExitCode.unexpected);
}
