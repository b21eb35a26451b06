import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RememberedWriter } from '../core/who/model.js';
import { safeText } from '../core/terminal-text.js';
import { stateDir } from './paths.js';
import { readPrivate, writePrivate } from './private-file.js';

// The owner directory: which connection an earlier `trace` saw write each owner id (acquire or
// renew), so `who` can name the holder of a lock whose holder is quiet now, or gone. Bounded: the
// newest MAX_ENTRIES, none older than a day. Written by trace at its end, read by who; a file that
// cannot be read reads as empty (it is a cache of what was seen, never the only copy of anything).

type Env = Readonly<Record<string, string | undefined>>;

export const ownerDirectoryFile = (env: Env): string => join(stateDir(env), 'owner-clients.json');

/** At most this many owners are remembered (about 150 bytes each). */
export const MAX_ENTRIES = 2000;
const FORGET_AFTER_MS = 24 * 3_600_000;

function isWriter(value: unknown): value is RememberedWriter {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.target === 'string' &&
    typeof e.key === 'string' &&
    typeof e.owner === 'string' &&
    typeof e.addr === 'string' &&
    typeof e.at === 'number' &&
    (e.name === undefined || typeof e.name === 'string')
  );
}

/** Every remembered writer (empty when there is no file or it cannot be read). */
export function loadOwnerDirectory(env: Env): RememberedWriter[] {
  try {
    const parsed: unknown = JSON.parse(readPrivate(ownerDirectoryFile(env)));
    return Array.isArray(parsed) ? parsed.filter(isWriter) : [];
  } catch {
    return [];
  }
}

const ownerKey = (e: RememberedWriter): string => JSON.stringify([e.target, e.key, e.owner]);

/** The entries kept after adding `fresh`: one per owner (the newest), within the age and count bounds. */
export function mergeWriters(old: readonly RememberedWriter[], fresh: readonly RememberedWriter[], now: number): RememberedWriter[] {
  const all = [...old, ...fresh].filter((e) => e.at > now - FORGET_AFTER_MS).sort((a, b) => a.at - b.at);
  const newest: RememberedWriter[] = [];
  const kept = new Set<string>();
  for (let i = all.length - 1; i >= 0 && newest.length < MAX_ENTRIES; i--) {
    const e = all[i]!;
    if (kept.has(ownerKey(e))) continue;
    kept.add(ownerKey(e));
    newest.push(e);
  }
  return newest.reverse();
}

/**
 * Adds what a trace saw. The file is read and replaced under proper-lockfile's lock, as the owner
 * memory is; a failure costs only this cache, so it is one warning line, never an error.
 */
export async function rememberWriters(env: Env, fresh: readonly RememberedWriter[], warn: (line: string) => void, now = Date.now()): Promise<void> {
  if (fresh.length === 0) return;
  const file = ownerDirectoryFile(env);
  try {
    mkdirSync(stateDir(env), { recursive: true, mode: 0o700 });
    const lockfile = await import('proper-lockfile');
    const release = await lockfile.lock(file, { realpath: false, stale: 10_000, retries: { retries: 50, minTimeout: 10, maxTimeout: 100 }, onCompromised: () => undefined });
    try {
      writePrivate(file, `${JSON.stringify(mergeWriters(loadOwnerDirectory(env), fresh, now))}\n`);
    } finally {
      await release().catch(() => undefined);
    }
  } catch (err) {
    warn(`could not update the owner directory ${safeText(file)} (${err instanceof Error ? safeText(err.message) : String(err)}): who will not remember these owners`);
  }
}
