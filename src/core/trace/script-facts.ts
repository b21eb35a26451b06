// What one script run did to one lock key, gathered from the commands it ran (MONITOR's `lua`
// lines) before anything is decided: probes, hold counts up and down, leases, SETs, deletes,
// sorted-set members and permits.

import type { TraceLibrary } from './events.js';
import type { LockState } from './lock-model.js';
import { parseSetOptions, type SetOptions } from './set-options.js';

/** What one script did to one lock key. */
export interface Facts {
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
  /** The script counted a fencing token for this lock (Redisson's RFencedLock): its grants carry one. */
  fenced: boolean;
}

export const newFacts = (): Facts => ({
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
  fenced: false,
  deleted: false,
  set: undefined,
  zadd: [],
  zrem: [],
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
