// Writes that apply only when the lock's value matches: `SET ... IFEQ` (a holder's renewal, or a
// takeover by someone who knew the value), DELIFEQ and DELEX (a holder's release). MONITOR lists
// the command, never its reply, so what it did is decided from the value the trace last saw (a
// token lock's value is its holder). Where that value is unknown (the lock was set before the
// trace began, or the server's commands are not known: a saved MONITOR log), the event says
// "conditional, outcome unknown" and changes nothing, so no finding rests on it. A server
// without the command or option rejected it: shown as the error it was, never as a write.

import type { EffectContext } from './effect-context.js';
import type { TraceClient } from './events.js';
import type { LockState } from './lock-model.js';
import type { MonitorLine } from './monitor-line.js';
import type { SetOptions } from './set-options.js';
import { resolveSet, sentPlainly } from './token-set.js';

const UNKNOWN = 'conditional, outcome unknown';

/** What the trace knows of the key's value now: the token lock's holder, absent, or unknown. */
type KnownValue = { readonly value: string } | 'absent' | 'unknown';

function knownValue(ctx: EffectContext, s: LockState | undefined, t: number): KnownValue {
  if (s?.library !== 'token' || s.holders.size > 1) return 'unknown';
  const holder = [...s.holders.keys()][0];
  return holder !== undefined && ctx.model.alive(s, t) ? { value: holder } : 'absent';
}

/** Emits the line as the server's error: the command or option does not exist there. */
function rejected(ctx: EffectContext, lock: string, line: MonitorLine, what: string): void {
  ctx.emit({ kind: 'raw', lock, command: line.args, detail: `error: the server has no ${what}; nothing was written` });
}

function unknown(ctx: EffectContext, lock: string, line: MonitorLine): void {
  ctx.emit({ kind: 'raw', lock, command: line.args, detail: UNKNOWN });
}

/** `SET lock value [...] IFEQ|IFNE|IFDEQ|IFDNE x`, decided from the value the trace last saw. */
export function conditionalSet(ctx: EffectContext, line: MonitorLine, opts: SetOptions & { readonly condition: NonNullable<SetOptions['condition']> }, client: TraceClient): void {
  const [, lock = '', value = ''] = line.args;
  const s = ctx.model.get(lock);
  const { option, value: expected } = opts.condition;
  if (ctx.commands && !ctx.commands.setConditions.has(option)) return rejected(ctx, lock, line, `SET ${option} (a syntax error)`);
  const known = knownValue(ctx, s, line.t);
  // IFNE and the digest conditions: what they do on an absent key, or a digest, is not computed here.
  if (!ctx.commands || option !== 'IFEQ' || known === 'unknown' || !s) return unknown(ctx, lock, line);
  if (known !== 'absent' && known.value === expected) {
    return resolveSet(ctx, s, opts, sentPlainly(value), line.t, client);
  }
  // Not applied. The holder's own renewal form (new value = compared value) found its lock gone or taken.
  if (value === expected) return ctx.emit({ kind: 'renew-refused', lock, library: 'token', owner: value, holders: [...s.holders.keys()], command: line.args });
  ctx.emit({ kind: 'raw', lock, library: 'token', command: line.args, detail: 'IFEQ did not match: nothing was written' });
}

/** DELIFEQ lock value, DELEX lock [IFEQ|IFNE value]: a compare-and-delete in one command. */
export function conditionalDelete(ctx: EffectContext, line: MonitorLine): void {
  const [cmd = '', lock = '', ...rest] = line.args;
  const name = cmd.toUpperCase();
  if (ctx.commands && !ctx.commands.deletes.has(name)) return rejected(ctx, lock, line, name);
  const s = ctx.model.get(lock);
  const [option, expected = ''] = name === 'DELIFEQ' ? ['IFEQ', rest[0]] : [rest[0]?.toUpperCase(), rest[1]];
  if (option === undefined) return deleteLock(ctx, s, line); // DELEX without a condition is a DEL
  const known = knownValue(ctx, s, line.t);
  if (!ctx.commands || !s || known === 'unknown' || (option !== 'IFEQ' && option !== 'IFNE')) return unknown(ctx, lock, line);
  const holders = [...s.holders.keys()];
  const matches = known !== 'absent' && known.value === expected;
  if (option === 'IFEQ') {
    if (!matches) return ctx.emit({ kind: 'release-refused', lock, library: 'token', owner: expected, holders, command: line.args });
    ctx.emit({ kind: 'released', lock, library: 'token', owner: expected, count: 0 });
    return ctx.model.clear(s);
  }
  // IFNE deletes a value other than the one named: someone else's lock.
  if (known !== 'absent' && !matches) return deleteLock(ctx, s, line);
  ctx.emit({ kind: 'raw', lock, library: 'token', command: line.args, detail: 'IFNE: nothing was deleted' });
}

/** A delete without the lock's protocol: shown with the holders it removed. */
export function deleteLock(ctx: EffectContext, s: LockState | undefined, line: MonitorLine): void {
  if (!s) return;
  ctx.emit({ kind: 'deleted', lock: s.lock, library: s.library, holders: [...s.holders.keys()], command: line.args.slice(0, 2) });
  ctx.model.clear(s);
}
