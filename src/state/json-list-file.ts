import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { safeText } from '../core/terminal-text.js';
import { readPrivate, writePrivate } from './private-file.js';

// A small JSON list in the user's state directory, shared by processes that run at once (20
// acquires, a trace ending beside them): read through the no-symlink boundary, entries checked one
// by one, and changed only read-modify-write under proper-lockfile's lock, then replaced
// atomically. The owner memory and the owner directory are two such lists.

/** Entries about a lock last seen a day ago are only history: each list drops them when it is written. */
export const FORGET_AFTER_MS = 24 * 3_600_000;

/** What reading the list found. */
export type ListRead<T> =
  | { readonly entries: T[]; readonly skipped: number }
  /** Not JSON, or not a list: the reason, one escaped line. */
  | { readonly corrupt: string }
  /** There, but not ours to read (permissions, a symbolic link, a directory): never replaced. */
  | { readonly unreadable: string };

/** Reads `file`, a list of `what`; a missing file is an empty list, entries that fail `isEntry` are counted as skipped. */
export function readJsonList<T>(file: string, what: string, isEntry: (value: unknown) => value is T): ListRead<T> {
  let text: string;
  try {
    text = readPrivate(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], skipped: 0 }; // no file yet
    return { unreadable: fileErrorReason(err) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { corrupt: clip(err instanceof Error ? err.message : String(err)) };
  }
  if (!Array.isArray(parsed)) return { corrupt: `not a list of ${what}` };
  const entries = parsed.filter(isEntry);
  return { entries, skipped: parsed.length - entries.length };
}

/** The entries read, or none when the file could not be read (for readers that report nothing). */
export const entriesOrNone = <T>(read: ListRead<T>): T[] => ('entries' in read ? read.entries : []);

/** Replaces the list atomically (mode 0600, never through a planted link). */
export function writeJsonList(file: string, entries: readonly unknown[], indent?: number): void {
  writePrivate(file, `${JSON.stringify(entries, null, indent)}\n`);
}

// Each holder keeps the lock for one read-modify-write of a small file: a few ms, but a process
// descheduled on a loaded machine holds it longer, so waiters retry for up to ~15 s. A lock left by
// a process that died is taken over after 10 s (a live holder refreshes it every 5 s).
const LOCK_OPTIONS = {
  realpath: false,
  stale: 10_000,
  retries: { retries: 200, minTimeout: 10, maxTimeout: 100, randomize: true },
} as const;

/** Which step of a locked change failed: making the directory, taking the lock, or the change itself. */
export type LockedStep = 'directory' | 'lock' | 'change';

export class LockedChangeError extends Error {
  constructor(
    readonly step: LockedStep,
    override readonly cause: unknown,
  ) {
    super(fileErrorReason(cause));
  }
}

/**
 * Runs `change` holding `file`'s lock (proper-lockfile: a lock directory made with mkdir, atomic on
 * every file system, with stale-lock takeover), after making the file's directory (mode 0700).
 * Throws LockedChangeError naming the step that failed; the lock is released either way.
 */
export async function underFileLock<T>(file: string, change: () => T): Promise<T> {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new LockedChangeError('directory', err);
  }
  // Loaded only here: it installs exit handlers that remove a lock left held when the process ends.
  const lockfile = await import('proper-lockfile');
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, { ...LOCK_OPTIONS, onCompromised: () => undefined });
  } catch (err) {
    throw new LockedChangeError('lock', err);
  }
  try {
    return change();
  } catch (err) {
    throw err instanceof LockedChangeError ? err : new LockedChangeError('change', err);
  } finally {
    await release().catch(() => undefined);
  }
}

/** A file system error as a short reason: its code said in words, no path (callers name the file). */
export function fileErrorReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ELOOP') return 'it is a symbolic link, which is never followed';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'a part of its path is not a directory';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EROFS') return 'read-only file system';
  if (code === 'ENOSPC') return 'no space left on the device';
  return clip(err instanceof Error ? err.message : String(err));
}

// A damaged file's parse error quotes its bytes: one escaped line, cut short.
function clip(text: string): string {
  const line = safeText(text);
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/** An object whose `target`, `key` and `owner` are strings: what every remembered entry is keyed by. */
export function isOwnerRecord(
  value: unknown,
): value is Record<string, unknown> & { target: string; key: string; owner: string } {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return typeof e.target === 'string' && typeof e.key === 'string' && typeof e.owner === 'string';
}
