import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { REDIS_SERVER_ENV } from '../core/redis-server-env.js';

export { REDIS_SERVER_ENV };

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
 * The absolute path of the redis-server to run: `explicit` (--redis-server) if given, else
 * $REDLOCK_REDIS_SERVER (one setting for every sandbox: `sandbox up`, `scenario run`, `race`, the
 * REPL), else the first one on PATH. Any server speaking RESP works, e.g. a valkey-server.
 * Recorded in the state file so a restart uses the same binary as `up`.
 */
export function findRedisServer(explicit: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  const fromEnv = env[REDIS_SERVER_ENV]?.trim() || undefined;
  const chosen =
    explicit !== undefined ? { path: explicit, said: `--redis-server ${explicit}` }
    : fromEnv !== undefined ? { path: fromEnv, said: `${REDIS_SERVER_ENV}=${fromEnv}` }
    : undefined;
  if (chosen) {
    const path = isAbsolute(chosen.path) ? chosen.path : resolve(chosen.path);
    if (!executable(path)) throw new UsageError(`${chosen.said}: not an executable file; ${INSTALL_HINT}`);
    return path;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'redis-server');
    if (executable(candidate)) return candidate;
  }
  throw new UsageError(`redis-server not found on PATH: ${INSTALL_HINT}`);
}
