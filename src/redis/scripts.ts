import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError, WrongTypeError } from '../core/errors.js';
import type { RedisClient } from './connection.js';
import { preludeFor } from './prelude.js';
import { sendLockCommand } from './server-time.js';

/**
 * Every Lua script we send, with the number of KEYS it takes. Each file documents its own
 * KEYS / ARGV / return contract; `_prelude.lua` (shared guards) is prepended, each script getting the helpers it calls.
 */
export const SCRIPTS = {
  lockAcquire: { file: 'lock-acquire.lua', keys: 3 },
  lockRelease: { file: 'lock-release.lua', keys: 3 },
  lockRenew: { file: 'lock-renew.lua', keys: 2 },
  lockForceUnlock: { file: 'lock-force-unlock.lua', keys: 3 },
  lockPeek: { file: 'lock-peek.lua', keys: 3 },
  tokenAcquire: { file: 'token-acquire.lua', keys: 1 },
  tokenRelease: { file: 'token-release.lua', keys: 1 },
  tokenExtend: { file: 'token-extend.lua', keys: 1 },
  tokenForceUnlock: { file: 'token-force-unlock.lua', keys: 1 },
  springAcquire: { file: 'spring-acquire.lua', keys: 1 },
  springRenew: { file: 'spring-renew.lua', keys: 1 },
  springRelease: { file: 'spring-release.lua', keys: 1 },
  springForceUnlock: { file: 'spring-force-unlock.lua', keys: 1 },
  fairAcquire: { file: 'fair-acquire.lua', keys: 3 },
  fairAcquireFailed: { file: 'fair-acquire-failed.lua', keys: 2 },
  fairRelease: { file: 'fair-release.lua', keys: 4 },
  fairForceUnlock: { file: 'fair-force-unlock.lua', keys: 4 },
  rwReadAcquire: { file: 'rw-read-acquire.lua', keys: 2 },
  rwReadRelease: { file: 'rw-read-release.lua', keys: 4 },
  rwReadRenew: { file: 'rw-read-renew.lua', keys: 2 },
  rwWriteAcquire: { file: 'rw-write-acquire.lua', keys: 1 },
  rwWriteRelease: { file: 'rw-write-release.lua', keys: 2 },
  rwForceUnlock: { file: 'rw-force-unlock.lua', keys: 2 },
  inspectSnapshot: { file: 'inspect-snapshot.lua', keys: 8 },
  pyrlRelease: { file: 'pyrl-release.lua', keys: 2 },
  pyrlForceUnlock: { file: 'pyrl-force-unlock.lua', keys: 2 },
  bsmObtain: { file: 'bsm-obtain.lua', keys: 1 },
  bsmRelease: { file: 'bsm-release.lua', keys: 1 },
  bsmRefresh: { file: 'bsm-refresh.lua', keys: 1 },
  multiAcquire: { file: 'multi-acquire.lua', keys: 1 },
  multiRenew: { file: 'multi-renew.lua', keys: 1 },
  multiRelease: { file: 'multi-release.lua', keys: 2 },
} as const;

export type ScriptName = keyof typeof SCRIPTS;
export type ScriptArg = string | number;

const LUA_DIR = new URL('./lua/', import.meta.url);
const prelude = readFileSync(new URL('_prelude.lua', LUA_DIR), 'utf8');
const sources = new Map<ScriptName, string>();

/** The full text sent to Redis for one script (the prelude helpers it uses + body), loaded once. */
export function scriptSource(name: ScriptName): string {
  let source = sources.get(name);
  if (source === undefined) {
    const body = readFileSync(new URL(SCRIPTS[name].file, LUA_DIR), 'utf8');
    // Redis reads `#!lua flags=...` only on the very first line, so it goes before the prelude.
    const shebang = body.startsWith('#!') ? body.slice(0, body.indexOf('\n') + 1) : '';
    const rest = body.slice(shebang.length);
    source = `${shebang}${preludeFor(prelude, rest)}\n${rest}`;
    sources.set(name, source);
  }
  return source;
}

const defined = new WeakSet<RedisClient>();

/** Registers every script on the client once (ioredis then uses EVALSHA with a NOSCRIPT fallback). */
function ensureDefined(client: RedisClient): void {
  if (defined.has(client)) return;
  for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
    client.defineCommand(name, { numberOfKeys: SCRIPTS[name].keys, lua: scriptSource(name) });
  }
  defined.add(client);
}

/** Adds a script call to a pipeline (same registry, same key count check). */
export function pipelineScript(
  pipeline: { [name: string]: unknown },
  name: ScriptName,
  keys: readonly string[],
  args: readonly ScriptArg[],
): void {
  checkKeyCount(name, keys);
  (pipeline[name] as (...a: ScriptArg[]) => unknown)(...keys, ...args);
}

function checkKeyCount(name: ScriptName, keys: readonly string[]): void {
  if (keys.length !== SCRIPTS[name].keys) {
    throw new Error(`script ${name} takes ${SCRIPTS[name].keys} keys, got ${keys.length}`);
  }
}

const shas = new Map<ScriptName, string>();

/** The SHA1 Redis knows a script by (of the full text, prelude included). */
export function scriptSha(name: ScriptName): string {
  let sha = shas.get(name);
  if (sha === undefined) {
    sha = createHash('sha1').update(scriptSource(name)).digest('hex');
    shas.set(name, sha);
  }
  return sha;
}

// Scripts whose full text a client has sent; from then on it sends EVALSHA, and a server that
// lost its script cache (a restart, SCRIPT FLUSH) answers NOSCRIPT, which sends the text again.
const sent = new WeakMap<RedisClient, Set<ScriptName>>();

const isNoScript = (err: unknown): boolean => err instanceof Error && err.message.startsWith('NOSCRIPT');

/**
 * Runs one script: EVAL with its text the first time on this client, EVALSHA after. Plain
 * commands rather than ioredis' defineCommand: that makes a command class per script per client,
 * and ioredis' send path, seeing dozens of classes, ran Redlock's three-node rounds at 0.6x
 * node-redlock's pace (bench/locks.ts).
 */
export async function runScript(
  client: RedisClient,
  name: ScriptName,
  keys: readonly string[],
  args: readonly ScriptArg[],
): Promise<unknown> {
  checkKeyCount(name, keys);
  let known = sent.get(client);
  if (known === undefined) {
    known = new Set();
    sent.set(client, known);
  }
  try {
    if (!known.has(name)) {
      known.add(name);
      return await sendLockCommand(client, 'eval', [scriptSource(name), keys.length, ...keys, ...args]);
    }
    try {
      return await sendLockCommand(client, 'evalsha', [scriptSha(name), keys.length, ...keys, ...args]);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return await sendLockCommand(client, 'eval', [scriptSource(name), keys.length, ...keys, ...args]);
    }
  } catch (err) {
    throw translateScriptError(err, keys[0] ?? '');
  }
}

/** Makes sure a client used with pipelineScript knows the scripts (ioredis loads them for a pipeline). */
export function prepareScripts(client: RedisClient): void {
  ensureDefined(client);
}

const KIND_HINT: Record<string, string> = {
  hash: 'a Redisson lock/hash',
  string: 'a string (a token lock or a plain value)',
  list: 'a list',
  set: 'a set',
  zset: 'a sorted set',
  stream: 'a stream',
};

const WRONG_KIND: Record<string, string> = {
  rw: 'is a Redisson read-write lock: use --kind read or --kind write',
  plain: 'is a plain Redisson lock, not a read-write lock: use --kind reentrant',
  fair: 'is a Redisson fair lock with waiters queued: use --kind fair',
};

/** Turns the prelude's REDLOCK_* error replies into messages a user can act on. */
export function translateScriptError(err: unknown, key: string): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const wrongType = /REDLOCK_WRONGTYPE (\w+)/.exec(message);
  if (wrongType) {
    const type = wrongType[1]!;
    return new WrongTypeError(
      `key "${key}" holds ${KIND_HINT[type] ?? `a ${type}`}, not this kind of lock: pick the matching --kind or another key (nothing was changed)`,
    );
  }
  const wrongKind = /REDLOCK_WRONGKIND (\w+)/.exec(message);
  if (wrongKind) return new WrongTypeError(`key "${key}" ${WRONG_KIND[wrongKind[1]!] ?? 'is another kind of lock'} (nothing was changed)`);
  const badArg = /REDLOCK_BADARG (\w+) (\S*)/.exec(message);
  if (badArg) {
    return new UsageError(`invalid ${badArg[1]} "${badArg[2]}" for "${key}": expected whole milliseconds up to 576h (nothing was changed)`);
  }
  if (/WRONGTYPE/.test(message)) {
    return new UsageError(`key "${key}" holds a value of another type than this lock kind uses (nothing was changed)`);
  }
  return err;
}
