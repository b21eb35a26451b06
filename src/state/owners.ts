import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LockKind } from '../core/lock-kind.js';
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

const fileOf = (env: Env): string => join(stateDir(env), 'owners.json');

// Entries whose lease ended long ago are only history: drop them so the file stays small.
const FORGET_AFTER_MS = 24 * 3_600_000;

export function loadOwners(env: Env): RememberedLock[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(fileOf(env), 'utf8'));
    return Array.isArray(parsed) ? (parsed as RememberedLock[]) : [];
  } catch {
    return [];
  }
}

function save(env: Env, entries: readonly RememberedLock[]): void {
  const file = fileOf(env);
  mkdirSync(stateDir(env), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(entries, null, 1)}\n`, { mode: 0o600 });
  renameSync(tmp, file); // atomic: a concurrent reader never sees half a file
}

const same = (a: RememberedLock, b: Pick<RememberedLock, 'target' | 'key' | 'owner'>): boolean =>
  a.target === b.target && a.key === b.key && a.owner === b.owner;

/** Records (or refreshes) a lock we hold. */
export function rememberOwner(env: Env, entry: RememberedLock, now = Date.now()): void {
  const kept = loadOwners(env).filter((e) => !same(e, entry) && e.expiresAt > now - FORGET_AFTER_MS);
  save(env, [...kept, entry]);
}

export function forgetOwner(env: Env, entry: Pick<RememberedLock, 'target' | 'key' | 'owner'>): void {
  const entries = loadOwners(env);
  const kept = entries.filter((e) => !same(e, entry));
  if (kept.length !== entries.length) save(env, kept);
}

/** The remembered locks on one key of one target (newest last). */
export function ownersOf(env: Env, target: string, key: string): RememberedLock[] {
  return loadOwners(env).filter((e) => e.target === target && e.key === key);
}
