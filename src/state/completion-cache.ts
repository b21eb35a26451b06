import { closeSync, constants, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { LINE_INDEX, withIndexEntry } from '../core/completion-cache.js';
import { stateDir } from './paths.js';
import { readPrivate, writePrivate } from './private-file.js';

// The completion's lock-key files: $XDG_STATE_HOME/redlock-cli/completion/keys-<hash>.txt, mode
// 0600 in a 0700 directory, named by the hash of a password-free identity (core/completion-cache.ts),
// beside each, while a refresh runs, `<file>.refreshing` (so a burst of Tabs starts one), and
// `index`, which file answers which line, for the scripts' awk (core/completion-cache.ts).

type Env = Readonly<Record<string, string | undefined>>;

export const completionCacheDir = (env: Env): string => join(stateDir(env), 'completion');

/**
 * The file for this identity, named by two 32-bit FNV-1a hashes of it: the identity holds no
 * secret (passwords are left out of it), so a Tab need not load node:crypto to name the file.
 */
export function keyCacheFile(env: Env, identity: string): string {
  const fnv = (seed: number): string => {
    let h = seed;
    for (let i = 0; i < identity.length; i++) h = Math.imul(h ^ identity.charCodeAt(i), 0x01000193) >>> 0;
    return h.toString(16).padStart(8, '0');
  };
  return join(completionCacheDir(env), `keys-${fnv(0x811c9dc5)}${fnv(0x050c5d1f)}.txt`);
}

/** `path@mtime`, or `path@-` when it is not there: what changes when the file does. */
export const stamp = (path: string): string => `${path}@${modifiedAt(path) ?? '-'}`;

/** The file's text; undefined when there is none (or it is a link, never followed). */
export function readCacheFile(file: string): string | undefined {
  try {
    return readPrivate(file);
  } catch {
    return undefined;
  }
}

/** Replaces the file atomically, mode 0600. */
export function writeCacheFile(file: string, text: string, env: Env): void {
  mkdirSync(completionCacheDir(env), { recursive: true, mode: 0o700 });
  writePrivate(file, text);
}

const marker = (file: string): string => `${file}.refreshing`;

/**
 * Claims the refresh of `file`: false while another one runs. A marker older than `staleMs`
 * belongs to a refresh that died without removing it, and is taken over.
 */
export function claimRefresh(file: string, env: Env, staleMs: number, now = Date.now()): boolean {
  mkdirSync(completionCacheDir(env), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(marker(file), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      const age = now - (modifiedAt(marker(file)) ?? now);
      if (age < staleMs) return false;
      rmSync(marker(file), { force: true });
    }
  }
  return false;
}

function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The refresh of `file` is over (done or given up). */
export const releaseRefresh = (file: string): void => rmSync(marker(file), { force: true });

/** A refresh of `file` is running. */
export const refreshRunning = (file: string): boolean => modifiedAt(marker(file)) !== undefined;

const indexFile = (env: Env): string => join(completionCacheDir(env), LINE_INDEX);

/** Makes the index name `file` for `key` (core/completion-cache.ts's lineKey), unless it already does. */
export function rememberLine(env: Env, key: string, file: string): void {
  const old = readCacheFile(indexFile(env)) ?? '';
  if (old.split('\n').includes(`${basename(file)}\t${key}`)) return;
  writeCacheFile(indexFile(env), withIndexEntry(old, key, basename(file)), env);
}

/** Forgets every line: what they resolve to may have changed (the targets file was written). */
export const dropLineIndex = (env: Env): void => rmSync(indexFile(env), { force: true });
