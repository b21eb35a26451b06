// Redisson's group multi-lock, getMultiLock(group, values), in a trace (docs/lock-formats.md,
// "Redisson's newer objects"). Its scripts name the group hash as KEYS[1] and carry the values
// after a fixed head of ARGV: lock and renew `lease, time, owner` (tryLockOnce: `time, lease,
// owner`), unlock `owner, message, lease, publish command, timeout, time`, forceUnlock `message,
// publish command`. Each value is a lock of its own: `<group>[<value>]`, so two owners holding
// one value at once is judged as on any other lock. What each run did is read from the commands
// it ran, since MONITOR never shows a reply:
// - HSET <value> <owner>: that value taken (acquired); an HGET of another owner's
//   `<value>:<other>:expire_time` with nothing written: refused (a renewal reads its own only).
// - an unlock's HINCRBY `:lock_count` -1 releases a hold, its HDEL of the value frees it; a value
//   whose expiry it read without decrementing was not the caller's (release-refused).
// - a renewal HGETs each value and stops at the first not the caller's: PTTL ran, all renewed.

import { lockChannel } from '../names.js';
import type { EffectContext, ScriptRun } from './effect-context.js';
import type { MonitorLine } from './monitor-line.js';
import { REDISSON_OWNER } from './keys.js';
import type { LockState } from './lock-model.js';

const FIELD = /^(.+):([^:]+:-?\d+):(expire_time|lock_count)$/;
/** ARGV before the values: unlock (owner first), lock/renew (owner third), forceUnlock (no owner). */
const HEAD = { unlock: 6, lock: 3, force: 2 } as const;

/** The lock trace keeps for one value of a group. */
export const multiLockValueName = (group: string, value: string): string => `${group}[${value}]`;

interface MultiRun {
  readonly group: string;
  readonly owner: string | undefined;
  readonly script: keyof typeof HEAD;
  readonly values: readonly string[];
}

/** A command of the run wrote a value's field of `group` (runs for every script run: no closure). */
function touchesFields(lua: readonly MonitorLine[], group: string): boolean {
  for (const l of lua) if (l.args[1] === group && FIELD.test(l.args[2] ?? '')) return true;
  return false;
}

/** The group a script run works on, with its owner and values; undefined for any other script. */
export function multiLockOf(run: ScriptRun): MultiRun | undefined {
  const group = run.keys[0];
  if (group === undefined) return undefined;
  if (!touchesFields(run.lua, group) && !(run.keys[1] !== undefined && REDISSON_OWNER.test(run.argv[0] ?? '') && run.keys[1] === lockChannel(group))) return undefined;
  const at = run.argv.findIndex((a) => REDISSON_OWNER.test(a));
  const script = at === 0 ? 'unlock' : at === 2 ? 'lock' : at < 0 ? 'force' : undefined;
  if (script === undefined) return undefined; // isHeldByThread: a read
  return { group, owner: at < 0 ? undefined : run.argv[at], script, values: [...new Set(run.argv.slice(HEAD[script]))] };
}

/** ARGV of a group multi-lock's lock or renewal (`lease, time, owner, values…`, or `time, lease, …`), known before it runs. */
export function isMultiLockArgv(argv: readonly string[]): boolean {
  return argv.length > HEAD.lock && /^\d+$/.test(argv[0]!) && /^\d+$/.test(argv[1]!) && REDISSON_OWNER.test(argv[2]!);
}

/** What the run's commands did to one value. */
interface ValueFacts {
  taken: boolean;
  decremented: boolean;
  freed: boolean;
  readOwnExpiry: boolean;
  otherHolder?: string;
}

const noFacts = (): ValueFacts => ({ taken: false, decremented: false, freed: false, readOwnExpiry: false });

function factsByValue(run: ScriptRun, m: MultiRun): Map<string, ValueFacts> {
  const facts = new Map(m.values.map((v): [string, ValueFacts] => [v, noFacts()]));
  for (const { args } of run.lua) {
    if (args[1] !== m.group) continue;
    const cmd = (args[0] ?? '').toLowerCase();
    const field = args[2] ?? '';
    const own = facts.get(field);
    if (own && cmd === 'hset' && args[3] === m.owner) own.taken = true;
    // One HDEL may name a value's three fields at once (ours does).
    if (cmd === 'hdel') for (const name of args.slice(2)) if (facts.has(name)) facts.get(name)!.freed = true;
    const parsed = FIELD.exec(field);
    if (!parsed) continue;
    // A run that names no values (ours, releasing every value the owner holds) shows them in its fields.
    if (parsed[2] === m.owner && !facts.has(parsed[1]!)) facts.set(parsed[1]!, noFacts());
    const f = facts.get(parsed[1]!);
    if (!f) continue;
    if (cmd === 'hincrby' && Number(args[3]) < 0) f.decremented = true;
    if (cmd === 'hget' && parsed[3] === 'expire_time') {
      if (parsed[2] === m.owner) f.readOwnExpiry = true;
      else f.otherHolder = parsed[2]!;
    }
  }
  return facts;
}

/** Decodes one multi-lock script run into events, one or more per value. */
export function applyMultiLock(ctx: EffectContext, run: ScriptRun, m: MultiRun): void {
  const facts = factsByValue(run, m);
  const ran = (name: string) => run.lua.some((l) => (l.args[0] ?? '').toLowerCase() === name);
  const taken = [...facts.values()].some((f) => f.taken);
  const refused = !taken && [...facts.values()].some((f) => f.otherHolder !== undefined);
  const renewed = !taken && !refused && ran('pttl');
  // lock and renew send `lease, time`, tryLockOnce `time, lease`: the lease is the smaller.
  const lease = Math.min(Number(run.argv[0]), Number(run.argv[1]));
  // An unlock that found no group checks EXISTS and reads nothing else (a retried unlock stops at its latch).
  const groupGone = m.script === 'unlock' && ran('exists') && !ran('hget');
  for (const [value, f] of facts) {
    const lock = multiLockValueName(m.group, value);
    if (!ctx.wants(m.group) && !ctx.wants(lock)) continue;
    const s = ctx.model.state(lock, 'redisson');
    const base = { lock, library: 'redisson', detail: `value ${value} of group ${m.group}` } as const;
    const holders = [...s.holders.keys()];
    if (m.script === 'force') {
      if (f.freed) ctx.emit({ ...base, kind: 'force-unlocked', holders, command: run.command });
      ctx.model.clear(s);
      continue;
    }
    const owner = m.owner!;
    if (m.script === 'lock' && f.taken) {
      endHolds(ctx, s, run.t, [...s.holders.keys()].some((o) => o !== owner));
      const count = (s.holders.get(owner)?.count ?? 0) + 1;
      s.holders.set(owner, { count, shared: false, client: run.client });
      ctx.model.setExpiry(s, run.t, lease);
      ctx.emit({ ...base, kind: 'acquired', owner, count, leaseMs: lease });
    } else if (m.script === 'lock' && refused) {
      // The values another owner holds live are the refusal; the free ones asked for beside them were never contested.
      if (f.otherHolder !== undefined) ctx.emit({ ...base, kind: 'refused', owner, holders: [f.otherHolder] });
    } else if (m.script === 'lock' && renewed) {
      if (!s.holders.has(owner)) s.holders.set(owner, { count: 1, shared: false, client: run.client });
      ctx.model.setExpiry(s, run.t, lease);
      ctx.emit({ ...base, kind: 'renewed', owner, leaseMs: lease });
    } else if (m.script === 'lock') {
      endHolds(ctx, s, run.t, s.holders.has(owner));
      ctx.emit({ ...base, kind: 'renew-refused', owner, holders });
    } else if (f.decremented) {
      const count = f.freed ? 0 : Math.max(1, (s.holders.get(owner)?.count ?? 1) - 1);
      if (f.freed) ctx.model.clear(s);
      else s.holders.set(owner, { count, shared: false, client: s.holders.get(owner)?.client ?? run.client });
      ctx.emit({ ...base, kind: 'released', owner, count });
    } else if (f.readOwnExpiry || groupGone) {
      // The server had no live hold of this owner on the value: if the model still had one, it ended by now.
      endHolds(ctx, s, run.t, s.holders.has(owner));
      ctx.emit({ ...base, kind: 'release-refused', owner, holders, ...(groupGone ? { detail: `${base.detail}: the group was already gone` } : {}) });
    }
  }
}

/** Ends every hold of the value now when the server showed the model's holders were gone. */
function endHolds(ctx: EffectContext, s: LockState, t: number, gone: boolean): void {
  if (gone) for (const e of ctx.model.expire(s, t, 'gone before its computed expiry')) ctx.emit(e);
}
