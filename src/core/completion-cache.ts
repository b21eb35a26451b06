import type { Candidate } from './completion.js';

// Lock keys for Tab come from a small file per connection in the state dir, so a Tab costs a file
// read, not a connection: Tab answers from the file and, once what answered is FRESH_MS old,
// starts a refresh in the background (at most REFRESH_BOUND_MS) so the next Tab is current. Where
// the file cannot answer (none yet, or the server has more locks than the limit and none were
// read for this prefix), Tab waits a bounded time for the refresh it starts, then offers what it
// has. The pure part: which file, what it holds, when it
// answers; commands/completion-cached-keys.ts does the reading and the starting.

/** How old a scan may be before a Tab it answers starts a refresh (it still answers). */
export const FRESH_MS = 3000;
/** How long a refresh may take, connection and SCAN, before it gives up. */
export const REFRESH_BOUND_MS = 5000;

/** Where a refresh finds its request (completion-refresh.ts). */
export const REFRESH_ENV = 'REDLOCK_CLI_COMPLETE_REFRESH';

/** One SCAN's result: the locks matching `prefix`*, at most the limit. */
export interface KeyScan {
  readonly prefix: string;
  /** The SCAN saw the whole keyspace and stopped short of the limit: no lock starting with `prefix` is missing. */
  readonly complete: boolean;
  /** When it was read (ms since the epoch). */
  readonly at: number;
  readonly keys: readonly Candidate[];
}

/** What the file holds: the server's scans, newest first, at most MAX_SCANS. */
export interface KeyCache {
  /** Where the keys come from, without a password (for a person reading the file). */
  readonly server: string;
  readonly scans: readonly KeyScan[];
}

/** Scans kept per file: the whole keyspace, and narrower ones where it has more locks than the limit. */
export const MAX_SCANS = 8;

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

const isCandidate = (c: unknown): c is Candidate => {
  const k = c as Partial<Record<keyof Candidate, unknown>> | null;
  return typeof k?.value === 'string' && (k.description === undefined || typeof k.description === 'string');
};

const isScan = (s: unknown): s is KeyScan => {
  const d = s as Partial<Record<keyof KeyScan, unknown>> | null;
  return typeof d?.prefix === 'string' && typeof d.complete === 'boolean' && typeof d.at === 'number' && Array.isArray(d.keys) && d.keys.every(isCandidate);
};

/** The file's text, or undefined when it is not a cache this version wrote (then it is read again). */
export function parseKeyCache(text: string): KeyCache | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  const d = data as Partial<Record<keyof KeyCache | 'version', unknown>> | null;
  if (d?.version !== 1 || typeof d.server !== 'string' || !Array.isArray(d.scans) || !d.scans.every(isScan)) return undefined;
  return { server: d.server, scans: d.scans };
}

export const formatKeyCache = (cache: KeyCache): string => `${JSON.stringify({ version: 1, ...cache })}\n`;

/** `old` with `scan` in place of the one for its prefix, newest first. */
export function withScan(old: KeyCache | undefined, server: string, scan: KeyScan): KeyCache {
  const others = (old?.scans ?? []).filter((s) => s.prefix !== scan.prefix);
  return { server, scans: [scan, ...others].slice(0, MAX_SCANS) };
}

/** The scan that can say which locks start with `word`: its prefix starts `word`, and it is complete or read for `word` itself. */
export function scanFor(cache: KeyCache | undefined, word: string): KeyScan | undefined {
  const usable = (cache?.scans ?? []).filter((s) => word.startsWith(s.prefix) && (s.complete || word === s.prefix));
  return usable.sort((a, b) => b.prefix.length - a.prefix.length)[0];
}

/**
 * What a Tab on `word` with no usable scan asks a refresh to read: the whole keyspace first, and
 * only where that stopped at the limit, the locks starting with `word`.
 */
export const scopeFor = (cache: KeyCache | undefined, word: string): string => (cache?.scans.some((s) => s.prefix === '') ? word : '');

/** The keys of `scan` starting with `word`. */
export const keysStarting = (scan: KeyScan, word: string): Candidate[] => scan.keys.filter((k) => k.value.startsWith(word));
