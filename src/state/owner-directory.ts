import { join } from 'node:path';
import type { RememberedWriter } from '../core/who/model.js';
import { safeText } from '../core/terminal-text.js';
import { stateDir } from './paths.js';
import {
  entriesOrNone,
  FORGET_AFTER_MS,
  isOwnerRecord,
  readJsonList,
  underFileLock,
  writeJsonList,
} from './json-list-file.js';

// The owner directory: which connection an earlier `trace` saw write each owner id (acquire or
// renew), so `who` can name the holder of a lock whose holder is quiet now, or gone. Bounded: the
// newest MAX_ENTRIES, none older than a day. Written by trace at its end, read by who; a file that
// cannot be read reads as empty (it is a cache of what was seen, never the only copy of anything).

type Env = Readonly<Record<string, string | undefined>>;

export const ownerDirectoryFile = (env: Env): string => join(stateDir(env), 'owner-clients.json');

/** At most this many owners are remembered (about 150 bytes each). */
export const MAX_ENTRIES = 2000;

const isWriter = (value: unknown): value is RememberedWriter =>
  isOwnerRecord(value) &&
  typeof value.addr === 'string' &&
  typeof value.at === 'number' &&
  (value.name === undefined || typeof value.name === 'string');

/** Every remembered writer (empty when there is no file or it cannot be read). */
export const loadOwnerDirectory = (env: Env): RememberedWriter[] =>
  entriesOrNone(readJsonList(ownerDirectoryFile(env), 'writers', isWriter));

const ownerKey = (e: RememberedWriter): string => JSON.stringify([e.target, e.key, e.owner]);

/** The entries kept after adding `fresh`: one per owner (the newest), within the age and count bounds. */
export function mergeWriters(
  old: readonly RememberedWriter[],
  fresh: readonly RememberedWriter[],
  now: number,
): RememberedWriter[] {
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
 * Adds what a trace saw. The file is read and replaced under its lock, as the owner memory is; a
 * failure costs only this cache, so it is one warning line, never an error.
 */
export async function rememberWriters(
  env: Env,
  fresh: readonly RememberedWriter[],
  warn: (line: string) => void,
  now = Date.now(),
): Promise<void> {
  if (fresh.length === 0) return;
  const file = ownerDirectoryFile(env);
  try {
    await underFileLock(file, () => writeJsonList(file, mergeWriters(loadOwnerDirectory(env), fresh, now)));
  } catch (err) {
    warn(
      `could not update the owner directory ${safeText(file)} (${err instanceof Error ? safeText(err.message) : String(err)}): who will not remember these owners`,
    );
  }
}
