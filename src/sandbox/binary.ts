import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';

const INSTALL_HINT = 'install it with `sudo apt-get install redis-server` (Debian/Ubuntu) or pass --redis-server PATH';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The absolute path of the redis-server to run: `explicit` if given, else the first one on PATH.
 * Recorded in the state file so a restart uses the same binary as `up`.
 */
export function findRedisServer(explicit: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (explicit !== undefined) {
    const path = isAbsolute(explicit) ? explicit : resolve(explicit);
    if (!executable(path)) throw new UsageError(`--redis-server ${explicit}: not an executable file; ${INSTALL_HINT}`);
    return path;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'redis-server');
    if (executable(candidate)) return candidate;
  }
  throw new UsageError(`redis-server not found on PATH: ${INSTALL_HINT}`);
}
