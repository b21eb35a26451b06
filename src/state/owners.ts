import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_KINDS, type LockKind } from '../core/lock-kind.js';
import { safeText } from '../core/terminal-text.js';
import { stateDir } from './paths.js';
import {
  entriesOrNone,
  FORGET_AFTER_MS,
  isOwnerRecord,
  type ListRead,
  LockedChangeError,
  readJsonList,
  underFileLock,
  writeJsonList,
} from './json-list-file.js';

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

const isEntry = (value: unknown): value is RememberedLock =>
  isOwnerRecord(value) &&
  (LOCK_KINDS as readonly unknown[]).includes(value.kind) &&
  typeof value.leaseMs === 'number' &&
  typeof value.expiresAt === 'number';

const read = (env: Env): ListRead<RememberedLock> => readJsonList(ownersFile(env), 'locks', isEntry);

/**
 * The remembered locks. A file that cannot be read is reported once through `warn` and moved
 * aside (under the file lock, so a writer's fresh file is never the one moved); without `warn`
 * (REPL panels, completion) it just reads as empty.
 */
export async function loadOwnersChecked(env: Env, warn: MemoryWarn): Promise<RememberedLock[]> {
  const first = read(env);
  if ('unreadable' in first) {
    warn(
      `cannot read the owner memory ${safeText(ownersFile(env))} (${first.unreadable}): no owner is remembered; pass --owner`,
    );
    return [];
  }
  if (!('corrupt' in first)) return report(env, first, warn);
  return (await underLock(env, warn, 'read', () => readRepaired(env, warn))) ?? [];
}

/** Reads without reporting anything: a damaged file reads as empty (see loadOwnersChecked). */
export function loadOwners(env: Env): RememberedLock[] {
  return entriesOrNone(read(env));
}

function report(env: Env, r: { entries: RememberedLock[]; skipped: number }, warn: MemoryWarn): RememberedLock[] {
  if (r.skipped > 0)
    warn(`skipped ${r.skipped} unreadable entr${r.skipped === 1 ? 'y' : 'ies'} in ${safeText(ownersFile(env))}`);
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
  warn(
    `the owner memory ${safeText(file)} could not be read (${r.corrupt}): moved it to ${safeText(aside)} and started a new one`,
  );
  return [];
}

const save = (env: Env, entries: readonly RememberedLock[]): void => writeJsonList(ownersFile(env), entries, 1);

/** What a failed change of the memory means for the user, by what was being done. */
const CONSEQUENCE = {
  remember: 'this lock was not remembered: pass --owner to release it',
  forget: 'it may still list this lock',
  read: 'no owner is remembered; pass --owner',
} as const;

/**
 * Runs `fn` holding the memory's lock file. Undefined, after one warning, when the state
 * directory or the file cannot be used: the lock in Redis is real either way, only its memory is
 * missing, so this never fails the command.
 */
async function underLock<T>(
  env: Env,
  warn: MemoryWarn,
  doing: keyof typeof CONSEQUENCE,
  fn: () => T,
): Promise<T | undefined> {
  const file = ownersFile(env);
  try {
    return await underFileLock(file, fn);
  } catch (err) {
    if (!(err instanceof LockedChangeError)) throw err;
    const what =
      err.step === 'directory'
        ? `cannot use the state directory ${safeText(stateDir(env))} (${err.message}; set XDG_STATE_HOME to a writable one)`
        : err.step === 'lock'
          ? `could not lock the owner memory ${safeText(file)} (${err.message})`
          : err.cause instanceof Unreadable
            ? `the owner memory ${safeText(file)}: ${err.cause.message}`
            : `could not write the owner memory ${safeText(file)} (${err.message})`;
    warn(`${what}: ${CONSEQUENCE[doing]}`);
    return undefined;
  }
}

const same = (a: RememberedLock, b: Pick<RememberedLock, 'target' | 'key' | 'owner'>): boolean =>
  a.target === b.target && a.key === b.key && a.owner === b.owner;

/** Records (or refreshes) a lock we hold: read, change and replace under the file lock. */
export async function rememberOwner(
  env: Env,
  entry: RememberedLock,
  warn: MemoryWarn,
  now = Date.now(),
): Promise<void> {
  await underLock(env, warn, 'remember', () => {
    const kept = readRepaired(env, warn).filter((e) => !same(e, entry) && e.expiresAt > now - FORGET_AFTER_MS);
    save(env, [...kept, entry]);
  });
}

export async function forgetOwner(
  env: Env,
  entry: Pick<RememberedLock, 'target' | 'key' | 'owner'>,
  warn: MemoryWarn,
): Promise<void> {
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
