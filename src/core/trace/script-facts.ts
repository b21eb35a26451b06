// What one script run did to one lock key, gathered from the commands it ran (MONITOR's `lua`
// lines) before anything is decided: probes, hold counts up and down, leases, SETs, deletes,
// sorted-set members and permits.

import type { TraceLibrary } from './events.js';
import type { LockState } from './lock-model.js';
import { parseSetOptions, type SetOptions } from './set-options.js';

/**
 * What one script did to one lock key. Its counts, fields and members start as shared empty ones,
 * made the first time one is recorded (most scripts touch one or two of them, and this runs per
 * key per script run of a log of millions).
 */
export interface Facts {
  probed: boolean;
  probeOwner: string | undefined;
  /** A probe that came after a SET NX: the SET found the key taken (our token-acquire.lua). */
  probedAfterSet: boolean;
  probedExists: boolean;
  incr: ReadonlyMap<string, number>;
  decr: ReadonlyMap<string, number>;
  hdel: ReadonlySet<string>;
  mode: string | undefined;
  pexpireMs: number | undefined;
  persist: boolean;
  deleted: boolean;
  set: (SetOptions & { readonly value: string }) | undefined;
  zadd: readonly string[];
  zrem: readonly string[];
  permitsTaken: number;
  permitsGiven: number;
  /** The script counted a fencing token for this lock (Redisson's RFencedLock): its grants carry one. */
  fenced: boolean;
}

// Shared and never written to: recordFact replaces one before its first write.
const NO_COUNTS: ReadonlyMap<string, number> = new Map();
const NO_FIELDS: ReadonlySet<string> = new Set();
const NO_FIELDS_LIST: readonly string[] = [];

/** `n` more for `field` in `counts`: the counts themselves, made now if they were the shared empty ones. */
function addCount(counts: ReadonlyMap<string, number>, field: string, n: number): Map<string, number> {
  const own = counts === NO_COUNTS ? new Map<string, number>() : (counts as Map<string, number>);
  return own.set(field, (own.get(field) ?? 0) + n);
}

/** `items` appended to `list`, made now if it was the shared empty one. */
function appended(list: readonly string[], items: readonly string[]): string[] {
  const own = list === NO_FIELDS_LIST ? [] : (list as string[]);
  own.push(...items);
  return own;
}

export const newFacts = (): Facts => ({
  probed: false,
  probeOwner: undefined,
  probedAfterSet: false,
  probedExists: false,
  incr: NO_COUNTS,
  decr: NO_COUNTS,
  hdel: NO_FIELDS,
  mode: undefined,
  pexpireMs: undefined,
  persist: false,
  fenced: false,
  deleted: false,
  set: undefined,
  zadd: NO_FIELDS_LIST,
  zrem: NO_FIELDS_LIST,
  permitsTaken: 0,
  permitsGiven: 0,
});

const PROBES = new Set(['exists', 'pttl', 'ttl', 'type', 'hexists', 'hget', 'get', 'getrange', 'hlen', 'zscore', 'zcard']);

/** Adds one command the script ran on the key to its facts. */
export function recordFact(f: Facts, cmd: string, args: readonly string[]): void {
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
      if (n > 0) f.incr = addCount(f.incr, field, n);
      else if (n < 0) f.decr = addCount(f.decr, field, -n);
      return;
    }
    case 'hset':
    case 'hsetnx':
      for (let i = 2; i + 1 < args.length; i += 2) {
        if (args[i] === 'mode') f.mode = args[i + 1];
        else f.incr = addCount(f.incr, args[i]!, Number(args[i + 1]) || 1);
      }
      return;
    case 'hdel':
      if (args.length > 2) f.hdel = new Set([...f.hdel, ...args.slice(2)]);
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
      f.set = { value: args[2] ?? '', ...parseSetOptions(args, 3) };
      return;
    case 'del':
    case 'unlink':
      f.deleted = true;
      return;
    case 'zadd':
      for (let i = firstScore(args); i + 1 < args.length; i += 2) f.zadd = appended(f.zadd, [args[i + 1]!]);
      return;
    case 'zrem':
      f.zrem = appended(f.zrem, args.slice(2));
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
export function firstScore(args: readonly string[]): number {
  let i = 2;
  while (i < args.length && /^(nx|xx|gt|lt|ch|incr)$/i.test(args[i]!)) i++;
  return i;
}

/** The library whose layout the facts show (a hash is Redisson's, a SET a token lock's). */
export function libraryOf(f: Facts, s: LockState | undefined, argOwner: string | undefined): TraceLibrary {
  if (f.incr.size + f.decr.size + f.hdel.size > 0 || f.mode !== undefined) return 'redisson';
  if (f.set) return 'token';
  if (f.zadd.length + f.zrem.length > 0 || f.permitsTaken + f.permitsGiven > 0) return 'semaphore';
  return s?.library ?? (argOwner !== undefined ? 'redisson' : 'token');
}
