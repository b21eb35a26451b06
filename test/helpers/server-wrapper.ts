import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRedisServer } from '../../src/sandbox/binary.js';

/** A server binary of the test's own, to prove which binary a command's sandbox ran. */
export interface ServerWrapper {
  /** An executable that notes each start, then execs the real redis-server (same pid). */
  readonly path: string;
  /** How many servers it started so far. */
  starts(): number;
  remove(): void;
}

/** A wrapper around the redis-server on PATH (the matrix's, when REDLOCK_TEST_SERVER is set). */
export function serverWrapper(): ServerWrapper {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-server-wrapper-'));
  const log = join(dir, 'starts');
  const path = join(dir, 'team-redis-server');
  const real = findRedisServer(undefined, { PATH: process.env.PATH });
  writeFileSync(log, '');
  writeFileSync(path, `#!/bin/sh\necho started >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  return {
    path,
    starts: () => readFileSync(log, 'utf8').split('\n').filter((l) => l !== '').length,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
