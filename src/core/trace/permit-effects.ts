// Semaphore permits from a script run: redis-semaphore's sorted set of permit ids (ZADD / ZREM),
// and Redisson's counting semaphore (DECRBY / INCRBY), whose permits have no owner.

import type { EffectContext, ScriptRun } from './effect-context.js';
import type { LockState } from './lock-model.js';
import type { Facts } from './script-facts.js';

/** Decodes the permits a script took or gave back on semaphore `s`. */
export function resolvePermits(ctx: EffectContext, run: ScriptRun, s: LockState, f: Facts): void {
  s.library = 'semaphore';
  if (f.pexpireMs !== undefined) ctx.model.setExpiry(s, run.t, f.pexpireMs);
  for (const id of f.zadd) {
    const renewing = s.holders.has(id);
    s.holders.set(id, { count: 1, shared: true, client: run.client });
    ctx.emit({ lock: s.lock, library: 'semaphore', shared: true, kind: renewing ? 'renewed' : 'acquired', owner: id, count: 1, ...(f.pexpireMs !== undefined ? { leaseMs: f.pexpireMs } : {}) });
  }
  for (const id of f.zrem) {
    s.holders.delete(id);
    ctx.emit({ lock: s.lock, library: 'semaphore', shared: true, kind: 'released', owner: id, count: 0 });
  }
  // Redisson's counting semaphore: permits have no owner, the connection that took them stands in.
  const taker = run.client.addr ?? 'client';
  if (f.permitsTaken > 0) {
    s.holders.set(taker, { count: (s.holders.get(taker)?.count ?? 0) + f.permitsTaken, shared: true, client: run.client });
    ctx.emit({ lock: s.lock, library: 'semaphore', shared: true, kind: 'acquired', owner: taker, count: f.permitsTaken, detail: `${f.permitsTaken} permit(s)` });
  }
  if (f.permitsGiven > 0) {
    const left = Math.max(0, (s.holders.get(taker)?.count ?? 0) - f.permitsGiven);
    if (left === 0) s.holders.delete(taker);
    else s.holders.set(taker, { count: left, shared: true, client: run.client });
    ctx.emit({ lock: s.lock, library: 'semaphore', shared: true, kind: 'released', owner: taker, count: left, detail: `${f.permitsGiven} permit(s)` });
  }
}
