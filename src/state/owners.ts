import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_KINDS, type LockKind } from '../locks/types.js';
import { stateDir } from './paths.js';

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

type Read = { readonly entries: RememberedLock[]; readonly skipped: number } | { readonly corrupt: string };

function read(env: Env): Read {
  let text: string;
  try {
    text = readFileSync(ownersFile(env), 'utf8');
  } catch {
    return { entries: [], skipped: 0 }; // no file yet
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { corrupt: err instanceof Error ? err.message : String(err) };
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
  if (!('corrupt' in first)) return report(env, first, warn);
  return (await underLock(env, warn, () => readRepaired(env, warn))) ?? [];
}

/** Reads without reporting anything: a damaged file reads as empty (see loadOwnersChecked). */
export function loadOwners(env: Env): RememberedLock[] {
  const r = read(env);
  return 'corrupt' in r ? [] : r.entries;
}

function report(env: Env, r: { entries: RememberedLock[]; skipped: number }, warn: MemoryWarn): RememberedLock[] {
  if (r.skipped > 0) warn(`skipped ${r.skipped} unreadable entr${r.skipped === 1 ? 'y' : 'ies'} in ${ownersFile(env)}`);
  return r.entries;
}

/** Inside the lock: a file that is still damaged is renamed, never overwritten. */
function readRepaired(env: Env, warn: MemoryWarn): RememberedLock[] {
  const r = read(env);
  if (!('corrupt' in r)) return report(env, r, warn);
  const file = ownersFile(env);
  const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, aside);
  warn(`the owner memory ${file} could not be read (${r.corrupt}): moved it to ${aside} and started a new one`);
  return [];
}

function save(env: Env, entries: readonly RememberedLock[]): void {
  const file = ownersFile(env);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(entries, null, 1)}\n`, { mode: 0o600 });
  renameSync(tmp, file); // atomic: a concurrent reader never sees half a file
}

/**
 * Runs `fn` holding the memory's lock file (proper-lockfile: a lock directory created with
 * mkdir, atomic on every file system, with stale-lock takeover). Undefined, after one warning,
 * when the lock cannot be had: the lock in Redis is real either way, only its memory is missing.
 */
async function underLock<T>(env: Env, warn: MemoryWarn, fn: () => T): Promise<T | undefined> {
  mkdirSync(stateDir(env), { recursive: true, mode: 0o700 });
  // Loaded only here: it installs exit handlers that remove a lock left held when the process ends.
  const lockfile = await import('proper-lockfile');
  const file = ownersFile(env);
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, { ...LOCK_OPTIONS, onCompromised: () => undefined });
  } catch (err) {
    warn(`could not lock the owner memory ${file} (${err instanceof Error ? err.message : String(err)}): this lock was not remembered, pass --owner later`);
    return undefined;
  }
  try {
    return fn();
  } finally {
    await release().catch(() => undefined);
  }
}

const same = (a: RememberedLock, b: Pick<RememberedLock, 'target' | 'key' | 'owner'>): boolean =>
  a.target === b.target && a.key === b.key && a.owner === b.owner;

/** Records (or refreshes) a lock we hold: read, change and replace under the file lock. */
export async function rememberOwner(env: Env, entry: RememberedLock, warn: MemoryWarn, now = Date.now()): Promise<void> {
  await underLock(env, warn, () => {
    const kept = readRepaired(env, warn).filter((e) => !same(e, entry) && e.expiresAt > now - FORGET_AFTER_MS);
    save(env, [...kept, entry]);
  });
}

export async function forgetOwner(env: Env, entry: Pick<RememberedLock, 'target' | 'key' | 'owner'>, warn: MemoryWarn): Promise<void> {
  if (!existsSync(ownersFile(env))) return;
  await underLock(env, warn, () => {
    const entries = readRepaired(env, warn);
    const kept = entries.filter((e) => !same(e, entry));
    if (kept.length !== entries.length) save(env, kept);
  });
}

/** The remembered locks on one key of one target (newest last). */
export async function ownersOf(env: Env, target: string, key: string, warn: MemoryWarn): Promise<RememberedLock[]> {
  return (await loadOwnersChecked(env, warn)).filter((e) => e.target === target && e.key === key);
}
