import { readFileSync } from 'node:fs';
import { UsageError, WrongTypeError } from '../core/errors.js';
import type { RedisClient } from './connection.js';

/**
 * Every Lua script we send, with the number of KEYS it takes. Each file documents its own
 * KEYS / ARGV / return contract; `_prelude.lua` (shared guards) is prepended to all of them.
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
  inspectSnapshot: { file: 'inspect-snapshot.lua', keys: 6 },
} as const;

export type ScriptName = keyof typeof SCRIPTS;
export type ScriptArg = string | number;

const LUA_DIR = new URL('./lua/', import.meta.url);
const prelude = readFileSync(new URL('_prelude.lua', LUA_DIR), 'utf8');
const sources = new Map<ScriptName, string>();

/** The full text sent to Redis for one script (prelude + body), loaded once. */
export function scriptSource(name: ScriptName): string {
  let source = sources.get(name);
  if (source === undefined) {
    const body = readFileSync(new URL(SCRIPTS[name].file, LUA_DIR), 'utf8');
    // Redis reads `#!lua flags=...` only on the very first line, so it goes before the prelude.
    const shebang = body.startsWith('#!') ? body.slice(0, body.indexOf('\n') + 1) : '';
    source = `${shebang}${prelude}\n${body.slice(shebang.length)}`;
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

type ScriptCaller = (...args: ScriptArg[]) => Promise<unknown>;

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

/** Runs one script: one round trip. Guard errors from the prelude become one-line usage errors. */
export async function runScript(
  client: RedisClient,
  name: ScriptName,
  keys: readonly string[],
  args: readonly ScriptArg[],
): Promise<unknown> {
  ensureDefined(client);
  checkKeyCount(name, keys);
  const call = (client as unknown as Record<ScriptName, ScriptCaller>)[name].bind(client);
  try {
    return await call(...keys, ...args);
  } catch (err) {
    throw translateScriptError(err, keys[0] ?? '');
  }
}

/** Makes sure a client used with pipelineScript knows the scripts. */
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
