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

/** The connection options without `--pass` and its value, and URLs without theirs. */
function maskedArgs(connection: readonly string[]): string[] {
  const args: string[] = [];
  for (let i = 0; i < connection.length; i++) {
    const word = connection[i]!;
    // Its value always follows it (the walk records a required value whatever it looks like).
    if (word === PASSWORD_FLAG) {
      i += 1;
      continue;
    }
    args.push(withoutPassword(word));
  }
  return args;
}

/**
 * What makes two Tabs read the same server: the connection options as typed and what they read
 * from (REDIS_URL, the targets file, the sandboxes), passwords left out. The file is named by its
 * hash; a password typed differently still reaches the same server, so it need not be part of it.
 */
export function cacheIdentity(input: CacheIdentityInput): string {
  const args = maskedArgs(input.connection);
  const sandbox = args.includes('--sandbox') ? input.sandboxes : '';
  return JSON.stringify({ args, redisUrl: input.redisUrl === undefined ? null : withoutPassword(input.redisUrl), targets: input.targets, sandbox });
}

// The index (state/completion-cache.ts writes it): which cache file answers a line, by what the
// completion's awk sees of it (completion-walk-keys.ts), so that a Tab with a warm cache starts
// no node. awk cannot see what the targets file or the sandboxes say, so: the index is dropped
// whenever the targets file is written (target add/remove/use), a line with --sandbox is never
// in it (node answers it, as before), and a Tab whose entry is stale has node put it right in
// the background (a hand-edited targets file answers from the old target until then).

/** The index's name in the cache directory. */
export const LINE_INDEX = 'index';
/** Lines kept in the index, newest first. */
export const MAX_INDEX_LINES = 64;

/**
 * The line key: REDIS_URL, then the connection options, masked as cacheIdentity masks them, tab
 * separated; undefined when the line is not indexed (a tab or a line break in a word would make
 * two lines one key; --sandbox depends on what awk cannot see).
 */
export function lineKey(connection: readonly string[], redisUrl: string | undefined): string | undefined {
  const args = maskedArgs(connection);
  const parts = [withoutPassword(redisUrl ?? ''), ...args];
  if (args.includes('--sandbox') || parts.some((p) => /[\t\n\r]/.test(p))) return undefined;
  return parts.join('\t');
}

/** `index` with `key` naming `file` (a base name), first, each key once, at most MAX_INDEX_LINES. */
export function withIndexEntry(index: string, key: string, file: string): string {
  const others = index.split('\n').filter((l) => l !== '' && l.slice(l.indexOf('\t') + 1) !== key);
  return `${[`${file}\t${key}`, ...others].slice(0, MAX_INDEX_LINES).join('\n')}\n`;
}

// The file is lines awk reads as well as node: a header, `server<TAB>where`, then per scan
// `scan<TAB>prefix<TAB>complete (1/0)<TAB>ms since the epoch` and its keys, `key<TAB>value<TAB>kind`.
// A backslash, tab or line break in a field is escaped (\\ \t \n \r); awk leaves a scan that holds
// one to node.
export const KEY_CACHE_HEADER = 'redlock-cli key cache 2';
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };
const escapeField = (text: string): string => text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!);
const unescapeField = (text: string): string => text.replace(/\\(.)/g, (_, c: string) => UNESCAPES[c] ?? c);

/** The file's text, or undefined when it is not a cache this version wrote (then it is read again). */
export function parseKeyCache(text: string): KeyCache | undefined {
  const lines = text.split('\n');
  if (lines[0] !== KEY_CACHE_HEADER) return undefined;
  let server: string | undefined;
  const scans: { prefix: string; complete: boolean; at: number; keys: Candidate[] }[] = [];
  for (const line of lines.slice(1)) {
    const [kind, ...f] = line.split('\t').map(unescapeField);
    if (kind === 'server' && f.length === 1) server = f[0];
    else if (kind === 'scan' && f.length === 3 && /^[01]$/.test(f[1]!) && /^\d+$/.test(f[2]!)) scans.push({ prefix: f[0]!, complete: f[1] === '1', at: Number(f[2]), keys: [] });
    else if (kind === 'key' && f.length === 2 && scans.length > 0) scans[scans.length - 1]!.keys.push({ value: f[0]!, ...(f[1] ? { description: f[1] } : {}) });
    else if (line !== '') return undefined;
  }
  if (server === undefined) return undefined;
  return { server, scans };
}

export function formatKeyCache(cache: KeyCache): string {
  const lines = [KEY_CACHE_HEADER, `server\t${escapeField(cache.server)}`];
  for (const s of cache.scans) {
    lines.push(`scan\t${escapeField(s.prefix)}\t${s.complete ? 1 : 0}\t${Math.round(s.at)}`);
    for (const k of s.keys) lines.push(`key\t${escapeField(k.value)}\t${escapeField(k.description ?? '')}`);
  }
  return `${lines.join('\n')}\n`;
}

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
