// A SET on a token lock, from a script or sent plainly: an acquisition (NX), a renewal by the
// holder, or a silent overwrite of someone else's lock (no NX).

import type { EffectContext, EventDraft } from './effect-context.js';
import type { TraceClient } from './events.js';
import type { LockState } from './lock-model.js';
import { setLease, type SetOptions } from './set-options.js';

/** What else is known of a SET besides its options (kept apart from them: merging the two cost a copy per SET). */
export interface SetFacts {
  readonly value: string;
  readonly inScript: boolean;
  readonly probedAfterSet: boolean;
  readonly probedExists: boolean;
}

/** A SET sent by a client itself, not from a script. */
export const sentPlainly = (value: string): SetFacts => ({ value, inScript: false, probedAfterSet: false, probedExists: false });

/** A SET on a token lock, from a script or sent plainly: acquire (NX), renewal, or a silent overwrite. */
export function resolveSet(ctx: EffectContext, s: LockState, opts: SetOptions, set: SetFacts, t: number, client: TraceClient): void {
  const { model } = ctx;
  const leaseMs = setLease(opts, t);
  const owner = set.value;
  s.library = 'token';
  if (opts.nx) {
    // In a script a probe right after the SET means it failed; sent plainly, the model decides.
    // Sent plainly, on a key a plain SET wrote as data without TTL, SET NX cannot have succeeded.
    const free = set.inScript ? !set.probedAfterSet : !model.alive(s, t) && !model.holdsData(s.lock);
    if (!free) return ctx.emit({ lock: s.lock, library: 'token', owner, kind: 'refused', holders: holdersOf(s), ...(s.holders.size === 0 && model.holdsData(s.lock) ? { data: true } : {}) });
    model.forgetData(s.lock);
    if (s.holders.size > 0) for (const e of model.expire(s, t, 'gone before its computed expiry')) ctx.emit(e);
    s.holders.set(owner, { count: 1, shared: false, client });
    model.setExpiry(s, t, leaseMs);
    const acquired: EventDraft = { lock: s.lock, library: 'token', owner, kind: 'acquired', count: 1 };
    if (leaseMs !== undefined) acquired.leaseMs = leaseMs;
    return ctx.emit(acquired);
  }
  // XX writes only over a key that exists: on a lock the trace knows is free, nothing was written.
  if (opts.xx && !model.alive(s, t)) return ctx.emit({ lock: s.lock, library: 'token', owner, kind: 'raw', detail: 'XX on a free lock: nothing was written' });
  const mine = s.holders.has(owner) && model.alive(s, t);
  if (opts.keepTtl) {
    if (!mine) ctx.emit({ lock: s.lock, library: 'token', owner, kind: 'raw', command: ['SET', s.lock, owner, 'KEEPTTL'] });
    return;
  }
  if (mine) {
    model.setExpiry(s, t, leaseMs);
    const renewed: EventDraft = { lock: s.lock, library: 'token', owner, kind: 'renewed' };
    if (leaseMs !== undefined) renewed.leaseMs = leaseMs;
    return ctx.emit(renewed);
  }
  // node-redlock's acquire checks EXISTS before a plain SET: the key was free. A plain SET is not.
  const overwrite = !(set.inScript && set.probedExists);
  if (s.holders.size > 0 && !overwrite) for (const e of model.expire(s, t, 'gone before its computed expiry')) ctx.emit(e);
  const before = holdersOf(s);
  s.holders.clear();
  s.holders.set(owner, { count: 1, shared: false, client });
  model.setExpiry(s, t, leaseMs);
  const acquired: EventDraft = { lock: s.lock, library: 'token', owner, kind: 'acquired', count: 1 };
  if (leaseMs !== undefined) acquired.leaseMs = leaseMs;
  if (overwrite) {
    acquired.overwrite = overwrite;
    acquired.holders = before;
  }
  ctx.emit(acquired);
}

/** Who held it before this SET: named only by a refusal and an overwrite (not built per SET). */
const holdersOf = (s: LockState): string[] => [...s.holders.keys()];
