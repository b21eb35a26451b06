import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stateDir } from '../state/paths.js';

/** Lines kept across sessions. */
export const HISTORY_MAX = 500;

export const historyFile = (env: Readonly<Record<string, string | undefined>>): string => join(stateDir(env), 'repl-history');

// A URL with a password stays in this session's memory but never reaches the file.
const SECRET = /:\/\/[^/\s@]*:[^/\s@]+@/;

/** The saved history, oldest first; the file is cut back to the newest entries when it has grown. */
export function loadHistory(file: string): string[] {
  let lines: string[];
  try {
    lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  } catch {
    return [];
  }
  if (lines.length > 2 * HISTORY_MAX) {
    lines = lines.slice(-HISTORY_MAX);
    try {
      writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    } catch {
      // a read-only state dir only costs the trimming
    }
  }
  return lines.slice(-HISTORY_MAX);
}

/** Appends one line (not one with a password in it); a state dir that cannot be written only loses history. */
export function appendHistory(file: string, line: string): void {
  if (SECRET.test(line) || line.includes('\n')) return;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    appendFileSync(file, `${line}\n`, { mode: 0o600 });
  } catch {
    // see above
  }
}
