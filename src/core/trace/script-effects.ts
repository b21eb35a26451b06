// One script run decoded: the EVAL / EVALSHA line and the commands the script ran (MONITOR's
// `lua` lines, which follow it). What the script did to each lock key is read from those
// commands, so a Redisson, node-redlock, redis-py or redis-semaphore script is understood without
// knowing its text; the body (when seen) only says what a script that changed nothing had meant
// to do: an acquire refused, a renewal or a release that found another holder.

import type { EffectContext, EventDraft, ScriptRun } from './effect-context.js';
import { queueCommand } from './fair-queue.js';
import { isLockKey, keyInfo, REDISSON_OWNER } from './keys.js';
import type { LockState } from './lock-model.js';
import { resolvePermits } from './permit-effects.js';
import { applyRateLimiter, rateLimiterOf } from './rate-limiter-effects.js';
import { applyMultiLock, multiLockOf } from './multi-lock-effects.js';
import { libraryOf, newFacts, recordFact, type Facts } from './script-facts.js';
import { resolveSet } from './token-set.js';

/** Decodes one script run into events (through `ctx.emit`) and updates the model. */
export function applyScript(ctx: EffectContext, run: ScriptRun): void {
  const limiter = rateLimiterOf(run);
  if (limiter !== undefined) {
    if (ctx.wants(limiter)) applyRateLimiter(ctx, run, limiter);
    return;
  }
  const group = multiLockOf(run);
  if (group !== undefined) return applyMultiLock(ctx, run, group);
  const facts = new RunFacts();
  for (const line of run.lua) {
    const cmd = line.args[0]!.toLowerCase();
    if (line.args[1] === undefined) continue;
    // Runs for every command of every script: only a command of several keys is split first.
    // (A DEL or UNLINK of one key, every token lock's release, is that key's command as it is.)
    if (MULTI_KEY.has(cmd) && !(line.args.length === 2 && (cmd === 'del' || cmd === 'unlink'))) for (const [single, args] of perKey(cmd, line.args)) recordCommand(ctx, run, facts, single, args);
    else recordCommand(ctx, run, facts, cmd, line.args);
  }
  const argOwner = run.argv.find((a) => REDISSON_OWNER.test(a));
  facts.forEach((key, f) => {
    if (ctx.wants(key)) resolveKey(ctx, run, key, f, argOwner);
  });
}

/**
 * The facts of each key one script run touched, in the order first touched. Nearly every run
 * touches one lock key: that one is kept apart, and a Map is made only for a second.
 */
class RunFacts {
  private firstKey: string | undefined;
  private first: Facts | undefined;
  private more: Map<string, Facts> | undefined;

  of(key: string): Facts {
    if (this.firstKey === undefined) {
      this.firstKey = key;
      return (this.first = newFacts());
    }
    if (key === this.firstKey) return this.first!;
    this.more ??= new Map();
    let f = this.more.get(key);
    if (!f) this.more.set(key, (f = newFacts()));
    return f;
  }

  forEach(fn: (key: string, f: Facts) => void): void {
    if (this.firstKey === undefined) return;
    fn(this.firstKey, this.first!);
    this.more?.forEach((f, key) => fn(key, f));
  }
}

/** What one command a script ran (on one key) tells of that key: its lock's queue, or its facts. */
function recordCommand(ctx: EffectContext, run: ScriptRun, facts: RunFacts, cmd: string, args: readonly string[]): void {
  const key = args[1]!;
  if (isLockKey(key)) return recordFact(facts.of(key), cmd, args);
  const info = keyInfo(key);
  if (info.role === 'queue' || info.role === 'timeouts') {
    if (ctx.wants(info.lock)) queueCommand(ctx, run, info.lock, info.role, cmd, args);
    return;
  }
  if (info.role === 'token-counter' && cmd === 'incr') return void (facts.of(info.lock).fenced = true);
  if (info.role !== 'lock') return;
  recordFact(facts.of(key), cmd, args);
}

const MULTI_KEY = new Set(['mset', 'msetnx', 'mget', 'del', 'unlink']);

/**
 * A command as one command per key it touches: bsm/redislock's ObtainMulti locks several keys with
 * one MSETNX (then MSET to re-obtain), checks them with one MGET and releases them with one DEL.
 */
function perKey(cmd: string, args: readonly string[]): [string, readonly string[]][] {
  if (cmd === 'mset' || cmd === 'msetnx') {
    const nx = cmd === 'msetnx' ? ['NX'] : [];
    const out: [string, readonly string[]][] = [];
    for (let i = 1; i + 1 < args.length; i += 2) out.push(['set', ['set', args[i]!, args[i + 1]!, ...nx]]);
    return out;
  }
  if (cmd === 'mget' || cmd === 'del' || cmd === 'unlink') {
    const single = cmd === 'mget' ? 'get' : cmd;
    return args.slice(1).map((key) => [single, [single, key]]);
  }
  return [[cmd, args]];
}

function resolveKey(ctx: EffectContext, run: ScriptRun, key: string, f: Facts, argOwner: string | undefined): void {
  const { model } = ctx;
  const known = model.get(key);
  const library = libraryOf(f, known, argOwner);
  const changed = f.incr.size + f.decr.size + f.hdel.size > 0 || f.deleted || f.set !== undefined || f.pexpireMs !== undefined || f.persist;
  const semaphore = f.zadd.length + f.zrem.length > 0 || f.permitsTaken + f.permitsGiven > 0;
  // A script that touched a key we never saw as a lock, and did nothing a lock script does, is not ours to decode.
  if (!known && !changed && !semaphore && run.intent === 'unknown') return;
  if (!known && !changed && !semaphore && !f.probed) return;
  const s = model.state(key, library);
  s.library = library;
  const token = run.argv[0];

  if (semaphore) return resolvePermits(ctx, run, s, f);
  if (f.mode === 'read' || f.mode === 'write') s.mode = f.mode;

  for (const [owner, n] of f.incr) {
    const shared = s.mode === 'read' && !owner.endsWith(':write');
    const prev = s.holders.get(owner);
    if (!prev && !shared) goneNow(ctx, s, run.t, owner);
    const count = (prev?.count ?? 0) + n;
    s.holders.set(owner, { count, shared, client: run.client });
    if (f.pexpireMs !== undefined) model.setExpiry(s, run.t, f.pexpireMs);
    const leaseMs = f.pexpireMs ?? (s.expiresAt !== undefined ? s.expiresAt - run.t : undefined);
    const joined: EventDraft = { lock: key, library, kind: shared ? 'reader-join' : 'acquired', owner, count };
    if (shared) joined.shared = shared;
    if (leaseMs !== undefined) joined.leaseMs = leaseMs;
    if (f.fenced) joined.fenced = true;
    ctx.emit(joined);
  }
  const released: ReadonlySet<string> = f.decr.size + f.hdel.size > 0 ? new Set([...f.decr.keys(), ...f.hdel]) : NO_OWNERS;
  for (const owner of released) {
    const prev = s.holders.get(owner);
    const gone = f.deleted || f.hdel.has(owner) || (prev !== undefined && prev.count - (f.decr.get(owner) ?? 0) <= 0);
    const count = gone ? 0 : Math.max(1, (prev?.count ?? 1) - (f.decr.get(owner) ?? 0));
    const shared = prev?.shared ?? (s.mode === 'read' && !owner.endsWith(':write'));
    if (gone) s.holders.delete(owner);
    else s.holders.set(owner, { count, shared, client: prev?.client ?? run.client });
    const left: EventDraft = { lock: key, library, kind: shared ? 'reader-leave' : 'released', owner, count };
    if (shared) left.shared = shared;
    ctx.emit(left);
  }
  if (f.incr.size > 0) return;
  if (released.size > 0) {
    if (f.deleted) model.clear(s);
    else if (f.pexpireMs !== undefined) model.setExpiry(s, run.t, f.pexpireMs);
    if (f.hdel.size > 0 && f.mode === 'read') s.mode = 'read';
    return;
  }
  if (f.set) {
    // A SET without expiry that the script then PEXPIREs (bsm/redislock's MSETNX) takes that lease.
    const pexpireMs = f.pexpireMs;
    const opts = f.set.pxMs === undefined && f.set.atMs === undefined && pexpireMs !== undefined ? { ...f.set, pxMs: pexpireMs } : f.set;
    const facts = { value: f.set.value, inScript: true, probedAfterSet: f.probedAfterSet, probedExists: f.probedExists };
    return resolveSet(ctx, s, opts, facts, run.t, run.client);
  }
  if (f.deleted) {
    // Compare-and-delete (GET then DEL): the holder released it; a DEL without a check forced it.
    if (f.probed && (run.intent === 'release' || run.intent === 'unknown')) {
      // The script compared its ARGV[1] with the value and deleted: that token held the lock, whatever the model thought.
      // (The holders are listed only when needed: this is every token lock's release.)
      const owner = library === 'token' && token !== undefined ? token : (firstHolder(s) ?? token ?? '?');
      if (s.holders.size > 0 && !s.holders.has(owner)) for (const e of model.expire(s, run.t, 'gone before its computed expiry')) ctx.emit(e);
      ctx.emit({ lock: key, library, kind: 'released', owner, count: 0 });
    } else ctx.emit({ lock: key, library, kind: 'force-unlocked', holders: [...s.holders.keys()], command: run.command });
    model.clear(s);
    return;
  }
  if (f.pexpireMs !== undefined || f.persist) {
    const owner = f.probeOwner ?? (token !== undefined && s.holders.has(token) ? token : undefined) ?? soleHolder(s) ?? argOwner ?? token ?? '?';
    if (!s.holders.has(owner)) s.holders.set(owner, { count: 1, shared: false, client: run.client });
    model.setExpiry(s, run.t, f.persist ? undefined : f.pexpireMs);
    const renewed: EventDraft = { lock: key, library, kind: 'renewed', owner };
    if (!f.persist) renewed.leaseMs = f.pexpireMs!;
    ctx.emit(renewed);
    return;
  }
  // Nothing changed: the script's purpose says what was refused.
  const owner = (run.intent === 'acquire' ? argOwner ?? f.probeOwner : f.probeOwner ?? argOwner) ?? token ?? '?';
  const holders = [...s.holders.keys()];
  switch (run.intent) {
    case 'acquire':
      ctx.emit({ lock: key, library, kind: 'refused', owner, holders });
      return;
    case 'renew':
    case 'release': {
      if (owner === '?') return;
      // The server found the key without this owner: if the model still had it there, it ended now.
      if (s.holders.has(owner)) for (const e of model.expire(s, run.t, 'gone before its computed expiry')) ctx.emit(e);
      const detail = f.probedExists && holders.length === 0 ? 'lock was already gone' : undefined;
      ctx.emit({ lock: key, library, kind: run.intent === 'renew' ? 'renew-refused' : 'release-refused', owner, holders, ...(detail ? { detail } : {}) });
      return;
    }
    case 'force':
    case 'unknown':
      return; // a script that only read: a check, a peek, `inspect`
  }
}

const NO_OWNERS: ReadonlySet<string> = new Set();

/** The server's evidence that the key was gone: whoever the model still had there (but `except`) lost it by now. */
function goneNow(ctx: EffectContext, s: LockState, t: number, except?: string): void {
  const others = [...s.holders.keys()].filter((o) => o !== except);
  if (others.length > 0 && !s.holders.get(others[0]!)?.shared) for (const e of ctx.model.expire(s, t, 'gone before its computed expiry')) ctx.emit(e);
}

function firstHolder(s: LockState): string | undefined {
  for (const owner of s.holders.keys()) return owner;
  return undefined;
}

function soleHolder(s: LockState): string | undefined {
  return s.holders.size === 1 ? [...s.holders.keys()][0] : undefined;
}
