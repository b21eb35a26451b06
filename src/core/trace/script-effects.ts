// One script run decoded: the EVAL / EVALSHA line and the commands the script ran (MONITOR's
// `lua` lines, which follow it). What the script did to each lock key is read from those
// commands, so a Redisson, node-redlock, redis-py or redis-semaphore script is understood without
// knowing its text; the body (when seen) only says what a script that changed nothing had meant
// to do: an acquire refused, a renewal or a release that found another holder.

import type { TraceClient, TraceEvent, TraceLibrary } from './events.js';
import { keyInfo, REDISSON_OWNER } from './keys.js';
import type { LockModel, LockState } from './lock-model.js';
import type { MonitorLine } from './monitor-line.js';
import type { ScriptIntent } from './script-intent.js';
import { parseSetOptions, setLease, type SetOptions } from './set-options.js';

export interface ScriptRun {
  readonly t: number;
  readonly client: TraceClient;
  readonly intent: ScriptIntent;
  readonly keys: readonly string[];
  readonly argv: readonly string[];
  /** The EVAL / EVALSHA as sent (body shortened), for raw events. */
  readonly command: readonly string[];
  readonly lua: readonly MonitorLine[];
}

/** Where decoded events go, with the run's time, client and node filled in. */
export interface EffectContext {
  readonly model: LockModel;
  readonly wants: (lock: string) => boolean;
  emit(event: Omit<TraceEvent, 't' | 'node'> & { readonly t?: number }): void;
}

/** What one script did to one lock key. */
interface Facts {
  probed: boolean;
  probeOwner: string | undefined;
  /** A probe that came after a SET NX: the SET found the key taken (our token-acquire.lua). */
  probedAfterSet: boolean;
  probedExists: boolean;
  readonly incr: Map<string, number>;
  readonly decr: Map<string, number>;
  readonly hdel: Set<string>;
  mode: string | undefined;
  pexpireMs: number | undefined;
  persist: boolean;
  deleted: boolean;
  set: (SetOptions & { readonly value: string }) | undefined;
  readonly zadd: string[];
  readonly zrem: string[];
  permitsTaken: number;
  permitsGiven: number;
}

const newFacts = (): Facts => ({
  probed: false,
  probeOwner: undefined,
  probedAfterSet: false,
  probedExists: false,
  incr: new Map(),
  decr: new Map(),
  hdel: new Set(),
  mode: undefined,
  pexpireMs: undefined,
  persist: false,
  deleted: false,
  set: undefined,
  zadd: [],
  zrem: [],
  permitsTaken: 0,
  permitsGiven: 0,
});

const PROBES = new Set(['exists', 'pttl', 'ttl', 'type', 'hexists', 'hget', 'get', 'hlen', 'zscore', 'zcard']);

/** Decodes one script run into events (through `ctx.emit`) and updates the model. */
export function applyScript(ctx: EffectContext, run: ScriptRun): void {
  const facts = new Map<string, Facts>();
  const factsOf = (key: string): Facts => {
    let f = facts.get(key);
    if (!f) facts.set(key, (f = newFacts()));
    return f;
  };
  for (const line of run.lua) {
    const cmd = line.args[0]!.toLowerCase();
    const key = line.args[1];
    if (key === undefined) continue;
    const info = keyInfo(key);
    if (info.role === 'queue' || info.role === 'timeouts') {
      if (ctx.wants(info.lock)) queueCommand(ctx, run, info.lock, info.role, cmd, line.args);
      continue;
    }
    if (info.role !== 'lock') continue;
    recordFact(factsOf(key), cmd, line.args);
  }
  const argOwner = run.argv.find((a) => REDISSON_OWNER.test(a));
  for (const [key, f] of facts) {
    if (ctx.wants(key)) resolveKey(ctx, run, key, f, argOwner);
  }
}

function recordFact(f: Facts, cmd: string, args: readonly string[]): void {
  if (PROBES.has(cmd)) {
    f.probed = true;
    if (cmd === 'exists') f.probedExists = true;
    if (f.set?.nx) f.probedAfterSet = true;
    const field = args[2];
    if ((cmd === 'hexists' || cmd === 'hget') && field !== undefined && field !== 'mode') f.probeOwner ??= field;
    return;
  }
  switch (cmd) {
    case 'hincrby': {
      const n = Number(args[3]);
      const field = args[2]!;
      if (n > 0) f.incr.set(field, (f.incr.get(field) ?? 0) + n);
      else if (n < 0) f.decr.set(field, (f.decr.get(field) ?? 0) - n);
      return;
    }
    case 'hset':
    case 'hsetnx':
      for (let i = 2; i + 1 < args.length; i += 2) {
        if (args[i] === 'mode') f.mode = args[i + 1];
        else f.incr.set(args[i]!, (f.incr.get(args[i]!) ?? 0) + (Number(args[i + 1]) || 1));
      }
      return;
    case 'hdel':
      for (const field of args.slice(2)) f.hdel.add(field);
      return;
    case 'pexpire':
      f.pexpireMs = Number(args[2]);
      return;
    case 'expire':
      f.pexpireMs = Number(args[2]) * 1000;
      return;
    case 'persist':
      f.persist = true;
      return;
    case 'set':
      f.set = { value: args[2] ?? '', ...parseSetOptions(args.slice(3)) };
      return;
    case 'del':
    case 'unlink':
      f.deleted = true;
      return;
    case 'zadd':
      for (let i = firstScore(args); i + 1 < args.length; i += 2) f.zadd.push(args[i + 1]!);
      return;
    case 'zrem':
      f.zrem.push(...args.slice(2));
      return;
    case 'decrby':
      f.permitsTaken += Number(args[2]) || 0;
      return;
    case 'incrby':
      f.permitsGiven += Number(args[2]) || 0;
      return;
  }
}

/** ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ...: the index of the first score. */
function firstScore(args: readonly string[]): number {
  let i = 2;
  while (i < args.length && /^(nx|xx|gt|lt|ch|incr)$/i.test(args[i]!)) i++;
  return i;
}

function queueCommand(ctx: EffectContext, run: ScriptRun, lock: string, role: 'queue' | 'timeouts', cmd: string, args: readonly string[]): void {
  const s = ctx.model.state(lock, 'redisson');
  const leave = (owner: string | undefined, detail?: string) => {
    if (owner === undefined) return;
    const at = s.queue.indexOf(owner);
    if (at >= 0) s.queue.splice(at, 1);
    s.deadlines.delete(owner);
    ctx.emit({ kind: 'queue-leave', lock, owner, library: 'redisson', ...(detail ? { detail } : {}) });
  };
  if (role === 'timeouts') {
    // ZADD timeouts <deadline> <owner>: the waiter's deadline (set just before it joins the queue).
    if (cmd === 'zadd') s.deadlines.set(args[firstScore(args) + 1] ?? '', Number(args[firstScore(args)]));
    return;
  }
  if (cmd === 'rpush') {
    for (const owner of args.slice(2)) {
      s.queue.push(owner);
      const deadline = s.deadlines.get(owner);
      ctx.emit({ kind: 'queue-join', lock, owner, library: 'redisson', ...(deadline !== undefined ? { deadline } : {}) });
    }
  } else if (cmd === 'lpop') {
    // The purge drops a head whose deadline passed; an acquire pops itself.
    const head = s.queue[0];
    const deadline = head === undefined ? undefined : s.deadlines.get(head);
    leave(head, deadline !== undefined && deadline <= run.t ? 'deadline passed' : undefined);
  } else if (cmd === 'lrem') leave(args[3]);
}

function libraryOf(f: Facts, s: LockState | undefined, argOwner: string | undefined): TraceLibrary {
  if (f.incr.size + f.decr.size + f.hdel.size > 0 || f.mode !== undefined) return 'redisson';
  if (f.set) return 'token';
  if (f.zadd.length + f.zrem.length > 0 || f.permitsTaken + f.permitsGiven > 0) return 'semaphore';
  return s?.library ?? (argOwner !== undefined ? 'redisson' : 'token');
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
  const base = { lock: key, library };
  // The server's evidence that the key was gone: whoever the model still had there lost it by now.
  const goneNow = (except?: string) => {
    const others = [...s.holders.keys()].filter((o) => o !== except);
    if (others.length > 0 && !s.holders.get(others[0]!)?.shared) for (const e of model.expire(s, run.t, 'gone before its computed expiry')) ctx.emit(e);
  };

  if (semaphore) return resolvePermits(ctx, run, s, f);
  if (f.mode === 'read' || f.mode === 'write') s.mode = f.mode;

  for (const [owner, n] of f.incr) {
    const shared = s.mode === 'read' && !owner.endsWith(':write');
    const prev = s.holders.get(owner);
    if (!prev && !shared) goneNow(owner);
    const count = (prev?.count ?? 0) + n;
    s.holders.set(owner, { count, shared, client: run.client });
    if (f.pexpireMs !== undefined) model.setExpiry(s, run.t, f.pexpireMs);
    const leaseMs = f.pexpireMs ?? (s.expiresAt !== undefined ? s.expiresAt - run.t : undefined);
    ctx.emit({ ...base, kind: shared ? 'reader-join' : 'acquired', owner, count, ...(shared ? { shared } : {}), ...(leaseMs !== undefined ? { leaseMs } : {}) });
  }
  const released = new Set([...f.decr.keys(), ...f.hdel]);
  for (const owner of released) {
    const prev = s.holders.get(owner);
    const gone = f.deleted || f.hdel.has(owner) || (prev !== undefined && prev.count - (f.decr.get(owner) ?? 0) <= 0);
    const count = gone ? 0 : Math.max(1, (prev?.count ?? 1) - (f.decr.get(owner) ?? 0));
    const shared = prev?.shared ?? (s.mode === 'read' && !owner.endsWith(':write'));
    if (gone) s.holders.delete(owner);
    else s.holders.set(owner, { count, shared, client: prev?.client ?? run.client });
    ctx.emit({ ...base, kind: shared ? 'reader-leave' : 'released', owner, count, ...(shared ? { shared } : {}) });
  }
  if (f.incr.size > 0) return;
  if (released.size > 0) {
    if (f.deleted) model.clear(s);
    else if (f.pexpireMs !== undefined) model.setExpiry(s, run.t, f.pexpireMs);
    if (f.hdel.size > 0 && f.mode === 'read') s.mode = 'read';
    return;
  }
  if (f.set) return resolveSet(ctx, s, { ...f.set, inScript: true, probedAfterSet: f.probedAfterSet, probedExists: f.probedExists }, run.t, run.client);
  if (f.deleted) {
    const holders = [...s.holders.keys()];
    // Compare-and-delete (GET then DEL): the holder released it; a DEL without a check forced it.
    if (f.probed && (run.intent === 'release' || run.intent === 'unknown')) {
      // The script compared its ARGV[1] with the value and deleted: that token held the lock, whatever the model thought.
      const owner = library === 'token' && token !== undefined ? token : (holders[0] ?? token ?? '?');
      if (!s.holders.has(owner) && holders.length > 0) for (const e of model.expire(s, run.t, 'gone before its computed expiry')) ctx.emit(e);
      ctx.emit({ ...base, kind: 'released', owner, count: 0 });
    } else ctx.emit({ ...base, kind: 'force-unlocked', holders, command: run.command });
    model.clear(s);
    return;
  }
  if (f.pexpireMs !== undefined || f.persist) {
    const owner = f.probeOwner ?? (token !== undefined && s.holders.has(token) ? token : undefined) ?? soleHolder(s) ?? argOwner ?? token ?? '?';
    if (!s.holders.has(owner)) s.holders.set(owner, { count: 1, shared: false, client: run.client });
    model.setExpiry(s, run.t, f.persist ? undefined : f.pexpireMs);
    ctx.emit({ ...base, kind: 'renewed', owner, ...(f.persist ? {} : { leaseMs: f.pexpireMs! }) });
    return;
  }
  // Nothing changed: the script's purpose says what was refused.
  const owner = (run.intent === 'acquire' ? argOwner ?? f.probeOwner : f.probeOwner ?? argOwner) ?? token ?? '?';
  const holders = [...s.holders.keys()];
  switch (run.intent) {
    case 'acquire':
      ctx.emit({ ...base, kind: 'refused', owner, holders });
      return;
    case 'renew':
    case 'release': {
      if (owner === '?') return;
      // The server found the key without this owner: if the model still had it there, it ended now.
      if (s.holders.has(owner)) for (const e of model.expire(s, run.t, 'gone before its computed expiry')) ctx.emit(e);
      const detail = f.probedExists && holders.length === 0 ? 'lock was already gone' : undefined;
      ctx.emit({ ...base, kind: run.intent === 'renew' ? 'renew-refused' : 'release-refused', owner, holders, ...(detail ? { detail } : {}) });
      return;
    }
    case 'force':
    case 'unknown':
      return; // a script that only read: a check, a peek, `inspect`
  }
}

function soleHolder(s: LockState): string | undefined {
  return s.holders.size === 1 ? [...s.holders.keys()][0] : undefined;
}

export interface SetFacts extends SetOptions {
  readonly value: string;
  readonly inScript: boolean;
  readonly probedAfterSet: boolean;
  readonly probedExists: boolean;
}

/** A SET on a token lock, from a script or sent plainly: acquire (NX), renewal, or a silent overwrite. */
export function resolveSet(ctx: EffectContext, s: LockState, set: SetFacts, t: number, client: TraceClient): void {
  const { model } = ctx;
  const leaseMs = setLease(set, t);
  const owner = set.value;
  const base = { lock: s.lock, library: 'token' as const, owner };
  s.library = 'token';
  const holders = [...s.holders.keys()];
  if (set.nx) {
    // In a script a probe right after the SET means it failed; sent plainly, the model decides.
    const free = set.inScript ? !set.probedAfterSet : !model.alive(s, t);
    if (!free) return ctx.emit({ ...base, kind: 'refused', holders });
    if (s.holders.size > 0) for (const e of model.expire(s, t, 'gone before its computed expiry')) ctx.emit(e);
    s.holders.set(owner, { count: 1, shared: false, client });
    model.setExpiry(s, t, leaseMs);
    return ctx.emit({ ...base, kind: 'acquired', count: 1, ...(leaseMs !== undefined ? { leaseMs: leaseMs } : {}) });
  }
  const mine = s.holders.has(owner) && model.alive(s, t);
  if (set.keepTtl) {
    if (!mine) ctx.emit({ ...base, kind: 'raw', command: ['SET', s.lock, owner, 'KEEPTTL'] });
    return;
  }
  if (mine) {
    model.setExpiry(s, t, leaseMs);
    return ctx.emit({ ...base, kind: 'renewed', ...(leaseMs !== undefined ? { leaseMs: leaseMs } : {}) });
  }
  // node-redlock's acquire checks EXISTS before a plain SET: the key was free. A plain SET is not.
  const overwrite = !(set.inScript && set.probedExists);
  if (s.holders.size > 0 && !overwrite) for (const e of model.expire(s, t, 'gone before its computed expiry')) ctx.emit(e);
  s.holders.clear();
  s.holders.set(owner, { count: 1, shared: false, client });
  model.setExpiry(s, t, leaseMs);
  ctx.emit({ ...base, kind: 'acquired', count: 1, ...(leaseMs !== undefined ? { leaseMs: leaseMs } : {}), ...(overwrite ? { overwrite, holders } : {}) });
}

function resolvePermits(ctx: EffectContext, run: ScriptRun, s: LockState, f: Facts): void {
  const base = { lock: s.lock, library: 'semaphore' as const, shared: true };
  s.library = 'semaphore';
  if (f.pexpireMs !== undefined) ctx.model.setExpiry(s, run.t, f.pexpireMs);
  for (const id of f.zadd) {
    const renewing = s.holders.has(id);
    s.holders.set(id, { count: 1, shared: true, client: run.client });
    ctx.emit({ ...base, kind: renewing ? 'renewed' : 'acquired', owner: id, count: 1, ...(f.pexpireMs !== undefined ? { leaseMs: f.pexpireMs } : {}) });
  }
  for (const id of f.zrem) {
    s.holders.delete(id);
    ctx.emit({ ...base, kind: 'released', owner: id, count: 0 });
  }
  // Redisson's counting semaphore: permits have no owner, the connection that took them stands in.
  const taker = run.client.addr ?? 'client';
  if (f.permitsTaken > 0) {
    s.holders.set(taker, { count: (s.holders.get(taker)?.count ?? 0) + f.permitsTaken, shared: true, client: run.client });
    ctx.emit({ ...base, kind: 'acquired', owner: taker, count: f.permitsTaken, detail: `${f.permitsTaken} permit(s)` });
  }
  if (f.permitsGiven > 0) {
    const left = Math.max(0, (s.holders.get(taker)?.count ?? 0) - f.permitsGiven);
    if (left === 0) s.holders.delete(taker);
    else s.holders.set(taker, { count: left, shared: true, client: run.client });
    ctx.emit({ ...base, kind: 'released', owner: taker, count: left, detail: `${f.permitsGiven} permit(s)` });
  }
}
