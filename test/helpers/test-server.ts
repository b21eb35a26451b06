import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

// The server matrix: REDLOCK_TEST_SERVER=/path/to/valkey-server (or another redis-server build)
// runs the tests on that binary instead of the redis-server on PATH. It is put first on the PATH
// under the name `redis-server`, so every server a test starts runs it, whoever starts it: the
// helpers (single, Sentinel, Cluster), sandboxes in the test process, and the built CLI in child
// processes (sandbox up, scenario run, race), which all find `redis-server` on the PATH. The
// workers inherit this process's environment (vitest starts them after the global setup).

export const TEST_SERVER_ENV = 'REDLOCK_TEST_SERVER';

export function setup(): (() => void) | undefined {
  const chosen = process.env[TEST_SERVER_ENV]?.trim();
  if (!chosen) return undefined;
  const binary = resolve(chosen);
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    throw new Error(`${TEST_SERVER_ENV}=${chosen}: not an executable file (scripts/extra-servers.sh path valkey prints one)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'redlock-test-server-'));
  symlinkSync(binary, join(dir, 'redis-server'));
  process.env.PATH = `${dir}${delimiter}${process.env.PATH ?? ''}`;
  console.log(`tests run on ${execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim()} (${TEST_SERVER_ENV}=${chosen})`);
  return () => rmSync(dir, { recursive: true, force: true });
}
