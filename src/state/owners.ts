import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_KINDS, type LockKind } from '../core/lock-kind.js';
import { safeText } from '../core/terminal-text.js';
import { stateDir } from './paths.js';
import { readPrivate, writePrivate } from './private-file.js';

/** A lock this machine took with `acquire` and has not released, so `release <key>` can find its owner. */
export interface RememberedLock {
  /** Password-free target description (host:port/db, Sentinel or Cluster seeds). */
  readonly target: string;
  readonly key: string;
  readonly kind: LockKind;
  readonly owner: string;
  readonly leaseMs: number;
  /** Epoch ms at which the lease runs out if nobody renews it. */
  readonly expiresAt: number;
  readonly token?: number | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;
/** Receives the one-line reports about the file (set aside, entries skipped, could not lock). */
export type MemoryWarn = (line: string) => void;

export const ownersFile = (env: Env): string => join(stateDir(env), 'owners.json');

// Entries whose lease ended long ago are only history: drop them so the file stays small.
const FORGET_AFTER_MS = 24 * 3_600_000;

// Concurrent acquires (20 at once in the test) each hold the lock for one read-modify-write of a
// small file: a few ms, but a process descheduled on a loaded machine holds it longer, so waiters
// retry for up to ~15 s. A lock left by a process that died is taken over after 10 s (a live
// holder refreshes it every 5 s).
const LOCK_OPTIONS = {
  realpath: false,
  stale: 10_000,
  retries: { retries: 200, minTimeout: 10, maxTimeout: 100, randomize: true },
} as const;

function isEntry(value: unknown): value is RememberedLock {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.target === 'string' &&
    typeof e.key === 'string' &&
    typeof e.owner === 'string' &&
    (LOCK_KINDS as readonly unknown[]).includes(e.kind) &&
    typeof e.leaseMs === 'number' &&
    typeof e.expiresAt === 'number'
  );
}

type Read =
  | { readonly entries: RememberedLock[]; readonly skipped: number }
  | { readonly corrupt: string }
  /** There, but not ours to read (permissions, a symbolic link, a directory): never replaced. */
  | { readonly unreadable: string };

/** A file system error as a short reason: its code said in words, no path (ours names the file). */
function reason(err: unknown): string {
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
const clip = (text: string): string => {
  const line = safeText(text);
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
};

function read(env: Env): Read {
  let text: string;
  try {
    text = readPrivate(ownersFile(env));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], skipped: 0 }; // no file yet
    return { unreadable: reason(err) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { corrupt: clip(err instanceof Error ? err.message : String(err)) };
  }
  if (!Array.isArray(parsed)) return { corrupt: 'not a list of locks' };
  const entries = parsed.filter(isEntry);
  return { entries, skipped: parsed.length - entries.length };
}

/**
 * The remembered locks. A file that cannot be read is reported once through `warn` and moved
 * aside (under the file lock, so a writer's fresh file is never the one moved); without `warn`
 * (REPL panels, completion) it just reads as empty.
 */
export async function loadOwnersChecked(env: Env, warn: MemoryWarn): Promise<RememberedLock[]> {
  const first = read(env);
  if ('unreadable' in first) {
    warn(`cannot read the owner memory ${safeText(ownersFile(env))} (${first.unreadable}): no owner is remembered; pass --owner`);
    return [];
  }
  if (!('corrupt' in first)) return report(env, first, warn);
  return (await underLock(env, warn, 'read', () => readRepaired(env, warn))) ?? [];
}

/** Reads without reporting anything: a damaged file reads as empty (see loadOwnersChecked). */
export function loadOwners(env: Env): RememberedLock[] {
  const r = read(env);
  return 'entries' in r ? r.entries : [];
}

function report(env: Env, r: { entries: RememberedLock[]; skipped: number }, warn: MemoryWarn): RememberedLock[] {
  if (r.skipped > 0) warn(`skipped ${r.skipped} unreadable entr${r.skipped === 1 ? 'y' : 'ies'} in ${safeText(ownersFile(env))}`);
  return r.entries;
}

/** The file could not be read: it is left exactly as it is, and nothing is written over it. */
class Unreadable extends Error {}

/** Inside the lock: a file that is still damaged is renamed, never overwritten; one we cannot read is left alone. */
function readRepaired(env: Env, warn: MemoryWarn): RememberedLock[] {
  const r = read(env);
  if ('unreadable' in r) throw new Unreadable(`cannot read it (${r.unreadable}), so it was left as it is`);
  if (!('corrupt' in r)) return report(env, r, warn);
  const file = ownersFile(env);
  const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, aside);
  warn(`the owner memory ${safeText(file)} could not be read (${r.corrupt}): moved it to ${safeText(aside)} and started a new one`);
  return [];
}

function save(env: Env, entries: readonly RememberedLock[]): void {
  writePrivate(ownersFile(env), `${JSON.stringify(entries, null, 1)}\n`);
}

/** What a failed change of the memory means for the user, by what was being done. */
const CONSEQUENCE = {
  remember: 'this lock was not remembered: pass --owner to release it',
  forget: 'it may still list this lock',
  read: 'no owner is remembered; pass --owner',
} as const;

/**
 * Runs `fn` holding the memory's lock file (proper-lockfile: a lock directory created with
 * mkdir, atomic on every file system, with stale-lock takeover). Undefined, after one warning,
 * when the state directory or the file cannot be used: the lock in Redis is real either way,
 * only its memory is missing, so this never fails the command.
 */
async function underLock<T>(env: Env, warn: MemoryWarn, doing: keyof typeof CONSEQUENCE, fn: () => T): Promise<T | undefined> {
  const file = ownersFile(env);
  const problem = (what: string): undefined => void warn(`${what}: ${CONSEQUENCE[doing]}`);
  try {
    mkdirSync(stateDir(env), { recursive: true, mode: 0o700 });
  } catch (err) {
    return problem(`cannot use the state directory ${safeText(stateDir(env))} (${reason(err)}; set XDG_STATE_HOME to a writable one)`);
  }
  // Loaded only here: it installs exit handlers that remove a lock left held when the process ends.
  const lockfile = await import('proper-lockfile');
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, { ...LOCK_OPTIONS, onCompromised: () => undefined });
  } catch (err) {
    return problem(`could not lock the owner memory ${safeText(file)} (${reason(err)})`);
  }
  try {
    return fn();
  } catch (err) {
    if (err instanceof Unreadable) return problem(`the owner memory ${safeText(file)}: ${err.message}`);
    return problem(`could not write the owner memory ${safeText(file)} (${reason(err)})`);
  } finally {
    await release().catch(() => undefined);
  }
}

const same = (a: RememberedLock, b: Pick<RememberedLock, 'target' | 'key' | 'owner'>): boolean =>
  a.target === b.target && a.key === b.key && a.owner === b.owner;

/** Records (or refreshes) a lock we hold: read, change and replace under the file lock. */
export async function rememberOwner(env: Env, entry: RememberedLock, warn: MemoryWarn, now = Date.now()): Promise<void> {
  await underLock(env, warn, 'remember', () => {
    const kept = readRepaired(env, warn).filter((e) => !same(e, entry) && e.expiresAt > now - FORGET_AFTER_MS);
    save(env, [...kept, entry]);
  });
}

export async function forgetOwner(env: Env, entry: Pick<RememberedLock, 'target' | 'key' | 'owner'>, warn: MemoryWarn): Promise<void> {
  if (!existsSync(ownersFile(env))) return;
  await underLock(env, warn, 'forget', () => {
    const entries = readRepaired(env, warn);
    const kept = entries.filter((e) => !same(e, entry));
    if (kept.length !== entries.length) save(env, kept);
  });
}

/** The remembered locks on one key of one target (newest last). */
export async function ownersOf(env: Env, target: string, key: string, warn: MemoryWarn): Promise<RememberedLock[]> {
  return (await loadOwnersChecked(env, warn)).filter((e) => e.target === target && e.key === key);
}
