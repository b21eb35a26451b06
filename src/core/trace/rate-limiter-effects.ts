// Redisson's RRateLimiter in a trace (docs/lock-formats.md, "Redisson's newer objects"). Its
// scripts name the config hash first and then its state keys (`{name}:value`, the client's
// `:value:<id>`, `{name}:permits`, the client's `:permits:<id>`); trySetRate names only the
// config hash and writes `rate` with HSETNX. What happened is read from the commands the script
// ran: DECRBY of a value key took permits (tryAcquire), a SET without reading grants gave some
// back (release), HSET / HSETNX of `rate` set the limiter up. A tryAcquire (ARGV: permits, time,
// random bytes) that took nothing was refused. Permits are taken, never held: no hold is kept.

import { suffixName } from '../names.js';
import type { EffectContext, ScriptRun } from './effect-context.js';
import type { MonitorLine } from './monitor-line.js';

const TRY_ACQUIRE_ARGS = 3;

/** The limiter a script run works on: its config hash's name, or undefined for any other script. */
export function rateLimiterOf(run: ScriptRun): string | undefined {
  // Runs for every script run of a log: the common ones (one key, no HSET of `rate`) are told
  // apart without building a name or a closure.
  const { keys } = run;
  const name = keys[0];
  if (name === undefined) return undefined;
  if (keys.length === 1) {
    for (const l of run.lua) if (setsRate(l, name)) return name;
    return undefined;
  }
  return keys[1] === suffixName(name, 'value') && keys.includes(suffixName(name, 'permits')) ? name : undefined;
}

const setsRate = (l: MonitorLine, name: string): boolean => l.args[1] === name && l.args[2] === 'rate' && /^hsetnx?$/i.test(l.args[0] ?? '');

/** A PER_CLIENT state's client id (its keys end in it), or undefined for the shared state. */
function clientOf(name: string, key: string): string | undefined {
  const prefix = `${suffixName(name, 'value')}:`;
  return key.startsWith(prefix) ? key.slice(prefix.length) : undefined;
}

function settingsText(fields: ReadonlyMap<string, string>, ifAbsent: boolean): string {
  const type = fields.get('type') === '1' ? 'per client' : 'overall';
  const keepAlive = Number(fields.get('keepAliveTime') ?? 0) > 0 ? `, keepAliveTime ${fields.get('keepAliveTime')} ms` : '';
  const how = ifAbsent ? 'trySetRate: only where not set yet' : 'setRate: client states reset';
  return `${fields.get('rate') ?? '?'} permits per ${fields.get('interval') ?? '?'} ms, ${type}${keepAlive} (${how})`;
}

/** Decodes one rate limiter script run into events. */
export function applyRateLimiter(ctx: EffectContext, run: ScriptRun, name: string): void {
  const fields = new Map<string, string>();
  let ifAbsent = false;
  let taken = 0;
  let given: number | undefined;
  let readGrants = false;
  let stateKey: string | undefined;
  for (const { args } of run.lua) {
    const cmd = (args[0] ?? '').toLowerCase();
    const key = args[1] ?? '';
    if ((cmd === 'hset' || cmd === 'hsetnx') && key === name) {
      ifAbsent ||= cmd === 'hsetnx';
      for (let i = 2; i + 1 < args.length; i += 2) fields.set(args[i]!, args[i + 1]!);
    } else if (cmd === 'decrby') {
      taken += Number(args[2]) || 0;
      stateKey = key;
    } else if (cmd === 'get' && key.startsWith(suffixName(name, 'value'))) stateKey ??= key;
    else if (cmd === 'zrangebyscore' || cmd === 'zrange') readGrants = true;
    else if (cmd === 'set' && key !== name) {
      given = Number(args[2]);
      stateKey = key;
    }
  }
  const client = stateKey === undefined ? undefined : clientOf(name, stateKey);
  const owner = client ?? run.client.addr ?? 'client';
  const base = { lock: name, library: 'rate-limiter', shared: true, owner } as const;
  if (fields.has('rate')) {
    ctx.emit({ ...base, kind: 'configured', detail: settingsText(fields, ifAbsent) });
    return;
  }
  if (taken > 0) {
    ctx.emit({ ...base, kind: 'acquired', count: taken, detail: `${taken} permit(s)` });
    return;
  }
  if (run.argv.length === TRY_ACQUIRE_ARGS || run.intent === 'acquire') {
    ctx.emit({ ...base, kind: 'refused', detail: `${run.argv[0] ?? '?'} permit(s) asked, too few left in this interval` });
    return;
  }
  // release(n): SET of the value without looking at the grants; availablePermits reads them.
  if (given !== undefined && !readGrants) ctx.emit({ ...base, kind: 'released', count: Number(run.argv[0]) || 0, detail: `permits given back, ${given} left` });
}
