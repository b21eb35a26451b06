import {
  cacheIdentity,
  FRESH_MS,
  keysStarting,
  lineKey,
  parseKeyCache,
  REFRESH_BOUND_MS,
  REFRESH_ENV,
  scanFor,
  scopeFor,
  type KeyCache,
  type KeyScan,
} from '../core/completion-cache.js';
import type { Candidate } from '../core/completion.js';
import { compiledPath } from '../core/compiled-path.js';
import { sleep } from '../core/sleep.js';
import { claimRefresh, keyCacheFile, readCacheFile, refreshRunning, releaseRefresh, rememberLine, stamp } from '../state/completion-cache.js';
import { sandboxesRoot } from '../sandbox/state.js';
import { targetsFile } from '../state/paths.js';
import type { RunContext } from './context.js';

// Lock keys where a Tab expects one, from the cache file of the line's connection: no commander,
// no ioredis, no connection here (that is the refresh's job, in a process of its own). The rule:
// a file younger than FRESH_MS answers alone; an older one answers and starts a refresh, so the
// next Tab is current; where no file can answer, the Tab starts a refresh and waits for it at most
// the budget, then offers what it has (nothing, rather than file names).

/**
 * How long a Tab with no usable cache waits for the refresh it starts, by default: not at all. The
 * refresh is a node process of its own that loads ioredis and connects, which takes longer than a
 * Tab can afford (a 100 ms wait was measured to end with nothing nearly always, and made that Tab
 * 231 ms instead of about 130); the next Tab has the keys. A user with a fast disk or a patient
 * shell can ask for a wait with REDLOCK_CLI_COMPLETE_MS.
 */
export const KEY_BUDGET_MS = 0;
/** A server far away (a VPN, another region) needs longer than a Tab usually gets: the user says how long. */
export const BUDGET_ENV = 'REDLOCK_CLI_COMPLETE_MS';
/** How often a waiting Tab looks at the file. */
const POLL_MS = 15;

/** The budget: REDLOCK_CLI_COMPLETE_MS when it is a whole number of ms from 1 to 10000, else the default (no wait). */
export function keyBudgetMs(env: Readonly<Record<string, string | undefined>>): number {
  const ms = Number(env[BUDGET_ENV]);
  return Number.isInteger(ms) && ms >= 1 && ms <= 10_000 ? ms : KEY_BUDGET_MS;
}

const REFRESH = compiledPath(import.meta.url, './completion-refresh.js', '../../dist/commands/completion-refresh.js');

/** Starts the detached refresh of `file` for `prefix`, unless one is running. */
async function startRefresh(ctx: RunContext, file: string, connection: readonly string[], prefix: string): Promise<void> {
  if (!claimRefresh(file, ctx.env, REFRESH_BOUND_MS + 5000)) return;
  try {
    // Loaded here: a Tab that the cache answers fresh starts nothing.
    const { spawn } = await import('node:child_process');
    const env = { ...ctx.env, [REFRESH_ENV]: JSON.stringify({ file, connection, prefix }) };
    spawn(process.execPath, [REFRESH], { detached: true, stdio: 'ignore', env }).on('error', () => releaseRefresh(file)).unref();
  } catch {
    releaseRefresh(file);
  }
}

/** The file's scan that can answer `word` (undefined: none can), and what it holds. */
function fromFile(file: string, word: string): { readonly cache?: KeyCache | undefined; readonly scan?: KeyScan | undefined } {
  const cache = parseKeyCache(readCacheFile(file) ?? '');
  return { cache, scan: scanFor(cache, word) };
}

/** Lock keys starting with `word` on the line's server, as the cache knows them; [] when it cannot say within the budget. */
export async function cachedLockKeys(ctx: RunContext, connection: readonly string[], word: string): Promise<Candidate[]> {
  const identity = cacheIdentity({
    connection,
    redisUrl: ctx.env.REDIS_URL || undefined,
    targets: stamp(targetsFile(ctx.env)),
    sandboxes: stamp(sandboxesRoot(undefined, ctx.env)),
  });
  const file = keyCacheFile(ctx.env, identity);
  // The scripts' awk answers this line's next Tabs from this file, without node.
  const key = lineKey(connection, ctx.env.REDIS_URL || undefined);
  if (key !== undefined) rememberLine(ctx.env, key, file);
  const { cache, scan } = fromFile(file, word);
  if (scan) {
    // Refreshed as it was read (its prefix), so it keeps answering the words it answers now.
    if (Date.now() - scan.at >= FRESH_MS) await startRefresh(ctx, file, connection, scan.prefix);
    return keysStarting(scan, word);
  }
  await startRefresh(ctx, file, connection, scopeFor(cache, word));
  const until = Date.now() + keyBudgetMs(ctx.env);
  while (Date.now() < until) {
    await sleep(Math.min(POLL_MS, until - Date.now()));
    // Asked before the file is read: a refresh writes the file, then ends, so a refresh seen
    // over has left its keys in the file read next. An unreachable server ends it with none.
    const running = refreshRunning(file);
    const later = fromFile(file, word).scan;
    if (later) return keysStarting(later, word);
    if (!running) break;
  }
  return [];
}
