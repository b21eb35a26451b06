import { InterruptedError } from '../core/errors.js';
import { nodeTimeoutMs, quorumOf, redlockValidity } from '../locks/redlock-nodes.js';
import { nodeRedlockRetryDelay, tokenRelease, tokenTryAcquire } from '../locks/token.js';
import type { Attempt, Holder, LockEnv, LockRequest } from '../locks/types.js';
import type { Gate } from './gate.js';

// Redlock's acquisition as node-redlock does it (SET NX PX on every node at once, a majority and
// a positive validity, roll back otherwise), but on the client's own time: a node's timeout only
// runs while the client runs, so replies that arrived during a pause are read after it (S13), and
// validity is measured when they are. The protocol in src/locks/redlock.ts times out on the wall
// clock instead, which would turn every pause into timeouts.

/** An attempt, with the validity measured after the replies and why a refusal was one. */
export type RoundResult = Attempt & { readonly validityMs?: number; readonly why?: string };

type Outcome = { readonly ok: true; readonly value: Attempt } | { readonly ok: false; readonly error: string };

/** Rejects if `work` takes longer than `ms` of the client's running time; a reply that came during a pause wins. */
async function withClientTimeout<T>(gate: Gate, work: Promise<T>, ms: number, node: string): Promise<T> {
  let expired = false;
  const timeout = (async (): Promise<never> => {
    await gate.sleep(ms);
    // Let a reply that arrived during a pause settle first: it is handled as the client resumes.
    await new Promise((resolve) => setImmediate(resolve));
    expired = true;
    throw new Error(`no answer from ${node} within ${ms} ms`);
  })();
  timeout.catch(() => undefined);
  const result = await Promise.race([work, timeout]);
  if (expired) throw new Error(`no answer from ${node} within ${ms} ms`);
  return result;
}

/** One Redlock round. `checkValidity: false` keeps a majority whose validity already ran out (the unsafe client). */
export async function redlockRound(gate: Gate, env: LockEnv, req: LockRequest, checkValidity: boolean): Promise<RoundResult> {
  const nodes = env.nodes;
  const timeoutMs = nodeTimeoutMs(req.leaseMs);
  const started = performance.now();
  const outcomes = await Promise.all(
    nodes.map(async (conn): Promise<Outcome> => {
      if (conn.offline) return { ok: false, error: conn.offline.message };
      try {
        return { ok: true, value: await withClientTimeout(gate, tokenTryAcquire(conn.client, req), timeoutMs, conn.label) };
      } catch (err) {
        gate.check();
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  const validityMs = Math.floor(redlockValidity(req.leaseMs, performance.now() - started));
  const locked = outcomes.filter((o) => o.ok && o.value.acquired).length;
  if (locked >= quorumOf(nodes.length) && (validityMs > 0 || !checkValidity)) return { acquired: true, count: 1, validityMs };
  // Undo what we took; a node that failed may still apply our SET later, so it gets the delete too.
  await Promise.all(
    nodes.map(async (conn, i) => {
      const o = outcomes[i];
      if (conn.offline || !o || (o.ok && !o.value.acquired)) return;
      await withClientTimeout(gate, tokenRelease(conn.client, req), timeoutMs, conn.label).catch(() => gate.check());
    }),
  );
  const refused = outcomes.flatMap((o) => (o.ok && !o.value.acquired ? [o.value] : []));
  const owners = [...new Set(refused.flatMap((a) => a.holders.map((h) => h.owner)))];
  const holders: Holder[] = owners.map((owner) => ({ owner, count: 1 }));
  const ttls = refused.map((a) => a.ttlMs);
  const why = locked >= quorumOf(nodes.length) ? `validity ${validityMs} ms` : `${locked} of ${nodes.length} nodes`;
  return { acquired: false, ttlMs: ttls.includes(-1) ? -1 : Math.max(0, ...ttls), holders, validityMs, why };
}

/** Rounds until acquired or `waitMs` (real) is spent, sleeping node-redlock's retry delay between them. */
export async function redlockAcquire(
  gate: Gate,
  env: LockEnv,
  req: LockRequest,
  opts: { readonly waitMs: number; readonly checkValidity: boolean; readonly signal: AbortSignal },
): Promise<RoundResult> {
  const started = Date.now();
  for (;;) {
    const attempt = await redlockRound(gate, env, req, opts.checkValidity);
    const remaining = opts.waitMs - (Date.now() - started);
    if (attempt.acquired || remaining <= 0) return attempt;
    await gate.sleep(Math.min(nodeRedlockRetryDelay(), remaining), opts.signal);
    if (opts.signal.aborted) throw new InterruptedError('interrupted while waiting for the lock');
  }
}
