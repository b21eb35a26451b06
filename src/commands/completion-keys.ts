import { Command } from 'commander';
import type { Candidate } from '../core/completion.js';
import { describeEndpoint } from '../core/endpoint.js';
import { scanLocks } from '../inspect/scan-locks.js';
import { connect, type Connection } from '../redis/connection.js';
import { applyConnectionOptions, declareConnectionOptions } from './connection-flags.js';
import type { RunContext } from './context.js';
import { targetSpec } from './options.js';

// Lock keys from the server a Tab's line would connect to: its -u / -p / --cluster / --sentinel /
// --target / --sandbox, else REDIS_URL or the current target, resolved by the same hook every
// command runs. Bounded: whatever the server has said when the time is up is what is kept, and
// it never asks for a password. The background refresh of the key cache runs this
// (completion-refresh.ts); a Tab itself only reads the cache (completion-cached-keys.ts).

/** Keys offered at most. */
export const KEY_LIMIT = 200;

/** SCAN's MATCH pattern for names starting with `prefix` (its glob characters escaped). */
export const prefixPattern = (prefix: string): string => `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;

/** The connection the options describe, resolved by the hook every command runs; undefined when it cannot be (no prompt). */
async function lineTarget(ctx: RunContext, connection: readonly string[], budgetMs: number) {
  const noTerminal: RunContext = { ...ctx, stdin: undefined };
  const program = new Command('redlock-cli').exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  const cmd = declareConnectionOptions(new Command('keys').exitOverride());
  program.addCommand(cmd);
  let spec: ReturnType<typeof targetSpec> | undefined;
  cmd.action((flags) => void (spec = targetSpec(flags, noTerminal)));
  program.hook('preAction', (_p, action) => applyConnectionOptions(program, action, noTerminal));
  await program.parseAsync(['keys', ...connection], { from: 'user' });
  return spec ? { ...spec, replyTimeoutMs: budgetMs } : undefined;
}

/** What a lookup found, when it reached the server. */
export interface KeyLookup {
  readonly keys: readonly Candidate[];
  /** The SCAN finished short of KEY_LIMIT: these are all the locks starting with the prefix. */
  readonly complete: boolean;
  /** Where from, without a password. */
  readonly server: string;
}

/** Lock keys starting with `prefix` on the server `connection` names, described by their kind; undefined when it was not reached in time. */
export async function lookupLockKeys(ctx: RunContext, connection: readonly string[], prefix: string, budgetMs: number): Promise<KeyLookup | undefined> {
  const found: Candidate[] = [];
  const stop = new AbortController();
  let conn: Connection | undefined;
  let server: string | undefined;
  let complete = false;
  let failed = false;
  const lookup = (async () => {
    const spec = await lineTarget(ctx, connection, budgetMs);
    if (!spec || stop.signal.aborted) return;
    conn = await connect(spec, { mode: 'one-shot', name: 'redlock-cli:complete', connectTimeoutMs: budgetMs });
    server = describeEndpoint(spec);
    const scan = scanLocks(conn, { pattern: prefixPattern(prefix), limit: KEY_LIMIT, signal: stop.signal, onUnread: () => undefined });
    for await (const batch of scan) for (const { view } of batch) found.push({ value: view.key, description: view.kind });
    complete = !stop.signal.aborted && found.length < KEY_LIMIT;
  })().catch(() => void (failed = true));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([lookup, new Promise((resolve) => (timer = setTimeout(resolve, budgetMs)))]);
  clearTimeout(timer);
  stop.abort();
  // Dropped, not QUIT: nobody waits for a goodbye, and a late connect is dropped as it lands.
  conn?.client.disconnect();
  void lookup.then(() => conn?.client.disconnect());
  if (server === undefined || failed) return undefined;
  return { keys: found.sort((a, b) => a.value.localeCompare(b.value)), complete, server };
}

/** What a Tab asks the background refresh for (completion-cached-keys.ts starts it). */
export interface RefreshRequest {
  /** The cache file to replace. */
  readonly file: string;
  /** The line's connection options, as argv. */
  readonly connection: readonly string[];
  /** What the SCAN matches (`<prefix>*`). */
  readonly prefix: string;
}

/** Reads the keys again and puts them in the cache file; a server that is not reached leaves the file as it was. */
export async function refreshKeyCache(ctx: RunContext, request: RefreshRequest): Promise<void> {
  const { formatKeyCache, parseKeyCache, REFRESH_BOUND_MS, withScan } = await import('../core/completion-cache.js');
  const { readCacheFile, releaseRefresh, writeCacheFile } = await import('../state/completion-cache.js');
  try {
    const found = await lookupLockKeys(ctx, request.connection, request.prefix, REFRESH_BOUND_MS);
    if (!found) return;
    const old = parseKeyCache(readCacheFile(request.file) ?? '');
    const scan = { prefix: request.prefix, complete: found.complete, at: Date.now(), keys: found.keys };
    writeCacheFile(request.file, formatKeyCache(withScan(old, found.server, scan)), ctx.env);
  } finally {
    releaseRefresh(request.file);
  }
}
