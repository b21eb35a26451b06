import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The real launcher; end-to-end tests run it from a build as a user would. */
export const BIN = 'bin/redlock-cli.js';

function newestMtime(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newestMtime(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );
}

/** `npm test` builds first; a lone `vitest run` of an e2e file rebuilds only when dist is stale. */
export function ensureBuilt(): void {
  let built = 0;
  try {
    built = statSync('dist/main.js').mtimeMs;
  } catch {
    // never built
  }
  if (built < newestMtime('src')) execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'ignore' });
}
