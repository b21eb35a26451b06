import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import type { Connection } from '../redis/connection.js';
import { decideQuorum, nodeFailures, nodeTimeoutMs, onEveryNode, quorumOf, redlockValidity, type NodeOutcome } from './redlock-nodes.js';
import { nodeRedlockRetryDelay, tokenDelete, tokenExtend, tokenRelease, tokenTryAcquire } from './token.js';
import type { Attempt, Holder, LockEnv, LockProtocol, LockRequest, Vote } from './types.js';
import { waitForLock } from './wait.js';

type Refused = Extract<Attempt, { acquired: false }>;

function nodesOf(env: LockEnv): readonly Connection[] {
  if (env.nodes.length === 0) {
    throw new UsageError('--kind redlock needs its independent primaries: --nodes redis://host:port,redis://host:port,... (3 or more)');
  }
  return env.nodes;
}

function voteOf(o: NodeOutcome<Attempt>, rolledBack: string | undefined): Vote {
  if (!o.ok) return { node: o.node, result: 'error', ms: o.ms, detail: o.error.message };
  if (o.value.acquired) return { node: o.node, result: 'locked', ms: o.ms, ...(rolledBack ? { detail: rolledBack } : {}) };
  const holder = o.value.holders.map((h) => h.owner).join(', ') || 'nobody';
  const ttl = o.value.ttlMs >= 0 ? `${formatDuration(o.value.ttlMs)} left` : 'no TTL';
  return { node: o.node, result: 'held', ms: o.ms, detail: `by ${holder} (${ttl})` };
}

/** Who blocked us, across nodes: each distinct token once; the longest TTL any node reported (-1 if one has none). */
function refusal(outcomes: readonly NodeOutcome<Attempt>[], votes: readonly Vote[]): Refused {
  const held = outcomes.flatMap((o) => (o.ok && !o.value.acquired ? [o.value] : []));
  const owners = new Set(held.flatMap((a) => a.holders.map((h) => h.owner)));
  const holders: Holder[] = [...owners].map((owner) => ({ owner, count: 1 }));
  const ttls = held.map((a) => a.ttlMs);
  const ttlMs = ttls.includes(-1) ? -1 : Math.max(0, ...ttls);
  return { acquired: false, ttlMs, holders, votes };
}

/** One Redlock round: SET NX PX on every node at once, then majority and validity decide. */
async function tryAcquire(env: LockEnv, req: LockRequest): Promise<Attempt> {
  const nodes = nodesOf(env);
  const timeoutMs = nodeTimeoutMs(req.leaseMs);
  const started = performance.now();
  const outcomes = await onEveryNode(nodes, timeoutMs, (client) => tokenTryAcquire(client, req));
  const validityMs = Math.floor(redlockValidity(req.leaseMs, performance.now() - started));
  const locked = outcomes.filter((o) => o.ok && o.value.acquired).length;
  if (locked >= quorumOf(nodes.length) && validityMs > 0) {
    return { acquired: true, count: 1, votes: outcomes.map((o) => voteOf(o, undefined)), validityMs };
  }
  // Like node-redlock, undo what we took. A node that failed or timed out may still apply our SET
  // later, so it gets the compare-and-delete too (queued behind the SET on the same connection).
  const toUndo = nodes.filter((_, i) => {
    const o = outcomes[i];
    return o !== undefined && (!o.ok || o.value.acquired);
  });
  if (toUndo.length > 0) await onEveryNode(toUndo, timeoutMs, (client) => tokenRelease(client, req));
  const why = locked >= quorumOf(nodes.length) ? `rolled back: validity ${validityMs} ms` : 'rolled back: no majority';
  return refusal(outcomes, outcomes.map((o) => voteOf(o, why)));
}

/**
 * Multi-node Redlock over independent primaries (`--nodes`), in node-redlock's format: the same
 * string key and token on every node. Acquired only with a majority and positive validity.
 */
export const redlockLock: LockProtocol = {
  kind: 'redlock',
  ownerFormat: 'token',
  tryAcquire,
  acquire: async (env, req, opts) => {
    nodesOf(env);
    return waitForLock(env, {
      attempt: () => tryAcquire(env, req),
      waitMs: opts.waitMs,
      signal: opts.signal,
      onRefused: opts.onRefused,
      retryDelay: () => nodeRedlockRetryDelay(),
    });
  },
  release: async (env, req) => {
    const outcomes = await onEveryNode(nodesOf(env), nodeTimeoutMs(req.leaseMs), (client) => tokenRelease(client, req));
    return decideQuorum(outcomes, 'redlock release') ? 'released' : 'not-owner';
  },
  renew: async (env, req) => {
    const started = performance.now();
    const outcomes = await onEveryNode(nodesOf(env), nodeTimeoutMs(req.leaseMs), (client) => tokenExtend(client, req));
    // An extension that took longer than the lease proves nothing: the keys may have expired meanwhile.
    return decideQuorum(outcomes, 'redlock extend') && redlockValidity(req.leaseMs, performance.now() - started) > 0;
  },
  forceUnlock: async (env, key) => {
    const outcomes = await onEveryNode(nodesOf(env), nodeTimeoutMs(undefined), (client) => tokenDelete(client, key));
    const deleted = outcomes.filter((o) => o.ok && o.value).length;
    if (outcomes.some((o) => !o.ok)) {
      throw nodeFailures(outcomes, `redlock force unlock deleted "${key}" on ${deleted} of ${outcomes.length} nodes`);
    }
    return deleted > 0;
  },
};
