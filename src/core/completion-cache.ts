import type { Candidate } from './completion.js';

// Lock keys for Tab come from a small file per connection in the state dir, so a Tab costs a file
// read, not a connection: Tab answers from the file and, once the file is FRESH_MS old, starts a
// refresh in the background (at most REFRESH_BOUND_MS) so the next Tab is current. Where the file
// cannot answer (none yet, or it was read for another prefix), Tab waits a bounded time for the
// refresh it starts, then offers what it has. The pure part: which file, what it holds, when it
// answers; commands/completion-cached-keys.ts does the reading and the starting.

/** How old the file may be before a Tab starts a refresh (it still answers from the file). */
export const FRESH_MS = 3000;
/** How long a refresh may take, connection and SCAN, before it gives up. */
export const REFRESH_BOUND_MS = 5000;

/** Where a refresh finds its request (completion-refresh.ts). */
export const REFRESH_ENV = 'REDLOCK_CLI_COMPLETE_REFRESH';

/** What the file holds: the locks a SCAN for `prefix`* found on the server, at most the limit. */
export interface KeyCache {
  readonly prefix: string;
  /** The SCAN saw the whole keyspace and stopped short of the limit: no lock starting with `prefix` is missing. */
  readonly complete: boolean;
  /** Where the keys come from, without a password (for a person reading the file). */
  readonly server: string;
  readonly keys: readonly Candidate[];
}

export interface CacheIdentityInput {
  /** The connection options typed on the line, as argv (core/completion.ts's `connection`). */
  readonly connection: readonly string[];
  /** REDIS_URL: where a line with no connection option goes. */
  readonly redisUrl: string | undefined;
  /** The saved targets' file and when it last changed: --target and the current target read it. */
  readonly targets: string;
  /** The sandboxes' directory and when it last changed: --sandbox reads it. */
  readonly sandboxes: string;
}

const PASSWORD_FLAG = '--pass';
/** `scheme://user:password@host` -> `scheme://user@host`: a URL's password never reaches the file or its name. */
export const withoutPassword = (text: string): string => text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, '$1@');

/**
 * What makes two Tabs read the same server: the connection options as typed and what they read
 * from (REDIS_URL, the targets file, the sandboxes), passwords left out. The file is named by its
 * hash; a password typed differently still reaches the same server, so it need not be part of it.
 */
export function cacheIdentity(input: CacheIdentityInput): string {
  const args: string[] = [];
  for (let i = 0; i < input.connection.length; i++) {
    const word = input.connection[i]!;
    // Its value always follows it (the walk records a required value whatever it looks like).
    if (word === PASSWORD_FLAG) {
      i += 1;
      continue;
    }
    args.push(withoutPassword(word));
  }
  const sandbox = args.includes('--sandbox') ? input.sandboxes : '';
  return JSON.stringify({ args, redisUrl: input.redisUrl === undefined ? null : withoutPassword(input.redisUrl), targets: input.targets, sandbox });
}

/** The file's text, or undefined when it is not a cache this version wrote (then it is read again). */
export function parseKeyCache(text: string): KeyCache | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  const d = data as Partial<Record<keyof KeyCache | 'version', unknown>>;
  if (typeof d !== 'object' || d === null || d.version !== 1) return undefined;
  if (typeof d.prefix !== 'string' || typeof d.complete !== 'boolean' || typeof d.server !== 'string' || !Array.isArray(d.keys)) return undefined;
  const keys: Candidate[] = [];
  for (const k of d.keys as unknown[]) {
    const c = k as Partial<Record<keyof Candidate, unknown>>;
    if (typeof c?.value !== 'string') return undefined;
    keys.push(typeof c.description === 'string' ? { value: c.value, description: c.description } : { value: c.value });
  }
  return { prefix: d.prefix, complete: d.complete, server: d.server, keys };
}

export const formatKeyCache = (cache: KeyCache): string => `${JSON.stringify({ version: 1, ...cache })}\n`;

/**
 * The keys starting with `word`, or undefined when the file cannot say: it was read for a prefix
 * `word` does not start with, or it stopped at the limit and `word` narrows it (keys past the limit
 * may start with `word`).
 */
export function keysFromCache(cache: KeyCache, word: string): Candidate[] | undefined {
  if (!word.startsWith(cache.prefix) || (!cache.complete && word !== cache.prefix)) return undefined;
  return cache.keys.filter((k) => k.value.startsWith(word));
}
