import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { fairLock } from '../locks/fair.js';
import { protocolFor } from '../locks/registry.js';
import { nodeRedlockRetryDelay } from '../locks/token.js';
import type { Attempt, LockEnv, LockKind, LockProtocol, LockRequest } from '../locks/types.js';
import type { ClientRuntime, HeldLock } from './client.js';
import { redlockAcquire, type RoundResult } from './client-redlock.js';
import { readerDefersToWriters, renewingEveryReader, writerRegistersWhileWaiting } from './client-rw.js';
import { startClientWatchdog } from './client-watchdog.js';
import type { ClientAction } from './model.js';

type Acquire = Extract<ClientAction, { do: 'acquire' }>;

// How long WAIT gives the replicas when the step does not say (Redisson's checkLockSyncedSlaves
// uses its own timeout; a few hundred ms is plenty on loopback).
const DEFAULT_WAIT_REPLICAS_MS = 200;
// resend-on-timeout: when the step gives no timeout.
const DEFAULT_RESEND_TIMEOUT_MS = 100;

/** The acquire step: one of three ways of taking the lock, then WAIT, the watchdog and the record. */
export async function acquireStep(c: ClientRuntime, step: Acquire): Promise<void> {
  const kind = c.kindOf(step);
  const protocol = protocolOf(kind, step, c);
  const env = c.envFor(kind);
  const watchdog = step.leaseMs === undefined;
  const leaseMs = step.leaseMs ?? step.watchdogLeaseMs;
  const req: LockRequest = { key: c.ctx.key, owner: c.ownerFor(kind), leaseMs: c.real(leaseMs) };
  const shared = kind === 'read';
  const parts = [`${kind}`, watchdog ? `watchdog ${formatDuration(leaseMs)}` : `lease ${formatDuration(leaseMs)}`];
  if (step.waitMs > 0) parts.push(`wait up to ${formatDuration(step.waitMs)}`);
  if (step.fairWaitTimeoutMs !== undefined) parts.push(`lock(), fairLockWaitTimeout ${formatDuration(step.fairWaitTimeoutMs)}`);
  if (step.renewReaders === 'all') parts.push('renewals extend every reader');
  if (step.mode !== 'atomic') parts.push(step.mode);
  await c.op('acquire', { detail: parts.join(', '), ...(shared ? { shared } : {}) }, async (rec) => {
    const sentAt = Date.now();
    c.refused = true;
    const attempt = await take(c, step, protocol, env, req);
    if (!attempt.acquired) return rec.fail({ detail: refusal(c, attempt) });
    if (step.waitReplicas !== undefined) {
      const acked = await waitReplicas(env, step.waitReplicas, c.real(step.timeoutMs ?? DEFAULT_WAIT_REPLICAS_MS));
      if (acked < step.waitReplicas) {
        await protocol.release(env, req).catch(() => undefined);
        return rec.fail({ detail: `only ${acked} of ${step.waitReplicas} replicas acknowledged the lock (WAIT): released it` });
      }
    }
    const already = c.lock?.kind === kind ? c.lock : undefined;
    const lock: HeldLock = already ?? { kind, protocol, env, req, leaseMs };
    c.lock = lock;
    c.lost = false;
    c.refused = false;
    c.fence = attempt.token;
    c.stopsOnLost = c.def.stopOnLost || step.stopOnLost === true;
    if (!lock.watchdog && (watchdog || c.stopsOnLost)) {
      lock.watchdog = startClientWatchdog(c, lock, watchdog ? 'watchdog' : 'fixed', sentAt, step.maxRenewals);
    }
    rec.ok({ leaseMs: believedLease(c, step, attempt, leaseMs), ...okExtras(attempt), ...(shared ? { shared } : {}) });
  });
}

/**
 * The kind's protocol; with fair-wait-timeout, a fair lock whose waiters queue as Redisson's lock()
 * on a client configured with that fairLockWaitTimeout (the allowance written into the queue); with
 * renew-readers: all, a read lock renewed as Redisson <= 4.3 did (every reader's timeout keys).
 */
function protocolOf(kind: LockKind, step: Acquire, c: ClientRuntime): LockProtocol {
  if (step.renewReaders === 'all') {
    if (kind !== 'read') throw new UsageError(`renew-readers goes with a read lock, and ${c.name} takes ${kind}: set kind: read`);
    return renewingEveryReader(protocolFor(kind));
  }
  if (step.fairWaitTimeoutMs === undefined) return protocolFor(kind);
  if (kind !== 'fair') throw new UsageError(`fair-wait-timeout goes with a fair lock, and ${c.name} takes ${kind}: set kind: fair`);
  return fairLock({ threadWaitMs: c.real(step.fairWaitTimeoutMs), blocking: true });
}

/** The lease the client believes it has: Redlock's validity when it checks it, the full lease otherwise. */
function believedLease(c: ClientRuntime, step: Acquire, attempt: Attempt, leaseMs: number): number {
  if (attempt.acquired && attempt.validityMs !== undefined && step.checkValidity) return c.ctx.clock.scenario(attempt.validityMs);
  return leaseMs;
}

function okExtras(attempt: Extract<Attempt, { acquired: true }>): { token?: number; detail?: string } {
  const details: string[] = [];
  if (attempt.count > 1) details.push(`hold count ${attempt.count}`);
  if (attempt.validityMs !== undefined && attempt.validityMs <= 0) details.push(`validity ${attempt.validityMs} ms, trusted anyway`);
  return { ...(attempt.token !== undefined ? { token: attempt.token } : {}), ...(details.length > 0 ? { detail: details.join(', ') } : {}) };
}

function refusal(c: ClientRuntime, attempt: RoundResult & { acquired: false }): string {
  const who = attempt.holders.map((h) => c.ctx.names(h.owner.replace(/:write$/, '')));
  const ttl = attempt.ttlMs === -1 ? 'no TTL' : attempt.ttlMs >= 0 ? `${formatDuration(c.ctx.clock.scenario(attempt.ttlMs))} left` : '';
  const held = who.length > 0 ? `held by ${[...new Set(who)].join(', ')}${ttl ? ` (${ttl})` : ''}` : 'not acquired';
  return attempt.why ? `${held}; ${attempt.why}` : held;
}

async function take(c: ClientRuntime, step: Acquire, protocol: LockProtocol, env: LockEnv, req: LockRequest): Promise<RoundResult> {
  const signal = c.abort.signal;
  switch (step.mode) {
    case 'atomic':
      if (protocol.kind === 'redlock') return redlockAcquire(c.gate, env, req, { waitMs: c.real(step.waitMs), checkValidity: step.checkValidity, signal });
      if (step.writerPreference) return writerPreferring(c, protocol, env, req, c.real(step.waitMs));
      return protocol.acquire(env, req, { waitMs: c.real(step.waitMs), signal });
    case 'setnx-then-expire':
      return setnxThenExpire(c, step, env, req);
    case 'resend-on-timeout':
      return resendOnTimeout(c, step, protocol, env, req);
  }
}

/** The writer-preferring discipline on a read-write lock (readers wait while a writer waits). */
function writerPreferring(c: ClientRuntime, protocol: LockProtocol, env: LockEnv, req: LockRequest, waitMs: number): Promise<RoundResult> {
  if (protocol.kind === 'read') return readerDefersToWriters(protocol, env, req, waitMs, c.abort.signal);
  if (protocol.kind === 'write') return writerRegistersWhileWaiting(protocol, env, req, waitMs, c.abort.signal);
  throw new UsageError(`writer-preference goes with a read or write lock, and ${c.name} takes ${protocol.kind}: set kind: read or write`);
}

/**
 * The pre-2.6.12 pattern: SETNX, then EXPIRE gapMs later, as two commands. A crash in the gap
 * leaves a lock with no TTL that nobody will ever release (S2).
 */
async function setnxThenExpire(c: ClientRuntime, step: Acquire, env: LockEnv, req: LockRequest): Promise<RoundResult> {
  if (c.kindOf(step) !== 'token') throw new UsageError(`setnx-then-expire takes a token lock (a plain string), not ${c.kindOf(step)}: set kind: token`);
  const client = env.conn.client;
  const waitMs = c.real(step.waitMs);
  const started = Date.now();
  for (;;) {
    if ((await client.call('SETNX', req.key, req.owner)) === 1) break;
    const remaining = waitMs - (Date.now() - started);
    if (remaining <= 0) {
      const [holder, ttl] = await Promise.all([client.call('GET', req.key), client.call('PTTL', req.key)]);
      return { acquired: false, ttlMs: Number(ttl), holders: typeof holder === 'string' ? [{ owner: holder, count: 1 }] : [] };
    }
    await c.gate.sleep(Math.min(nodeRedlockRetryDelay(), remaining), c.abort.signal);
  }
  c.note(`SETNX took the key; EXPIRE follows in ${formatDuration(step.gapMs ?? 0)}`);
  await c.gate.sleep(c.real(step.gapMs ?? 0), c.abort.signal);
  c.gate.check();
  await client.call('PEXPIRE', req.key, req.leaseMs);
  return { acquired: true, count: 1 };
}

/**
 * A client that gives up on a reply slower than timeoutMs and sends the same acquire again (one
 * resend, each a single attempt). The first request still runs on the server, so a reentrant
 * lock is then held twice (S12).
 */
async function resendOnTimeout(c: ClientRuntime, step: Acquire, protocol: LockProtocol, env: LockEnv, req: LockRequest): Promise<RoundResult> {
  const timeoutMs = step.timeoutMs ?? DEFAULT_RESEND_TIMEOUT_MS;
  const first = protocol.tryAcquire(env, req);
  first.catch(() => undefined);
  const timedOut = Symbol('timeout');
  const winner = await Promise.race([first, c.gate.sleep(c.real(timeoutMs), c.abort.signal).then(
      () => timedOut,
      () => timedOut,
    ),
  ]);
  if (winner !== timedOut) return winner as Attempt;
  c.note(`no reply within ${formatDuration(timeoutMs)}: sending the acquire again`);
  return protocol.tryAcquire(env, req);
}

/** WAIT on the connection that wrote the lock: how many replicas have it. */
async function waitReplicas(env: LockEnv, replicas: number, timeoutMs: number): Promise<number> {
  const reply = await env.conn.client.call('WAIT', replicas, timeoutMs);
  if (typeof reply !== 'number') throw new Error(`unexpected WAIT reply: ${JSON.stringify(reply)}`);
  return reply;
}

