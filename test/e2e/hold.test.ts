import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawClient } from '../helpers/lock-env.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

// The real launcher from a build: signals reach bin/redlock-cli.js, which aborts ctx.signal.
const BIN = 'bin/redlock-cli.js';

// Remembered owners go to a private state dir, never the user's.
const stateEnv = tempStateEnv();
let server: RedisServer;
let raw: Redis;
const spawned: ChildProcess[] = [];

function newestMtime(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newestMtime(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );
}

beforeAll(async () => {
  // `npm test` builds first; a lone `vitest run` of this file rebuilds only if dist is stale.
  let built = 0;
  try {
    built = statSync('dist/main.js').mtimeMs;
  } catch {
    // never built
  }
  if (built < newestMtime('src')) execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'ignore' });
  server = await startRedis();
  raw = rawClient(server);
}, 60_000);

afterAll(async () => {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  raw?.disconnect();
  await server?.stop();
});

/** Runs the built CLI as a real process with piped stdio (no TTY: event lines). */
function cli(...args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...stateEnv, NO_COLOR: '1' } });
  spawned.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    out: () => stdout,
    err: () => stderr,
    async waitFor(pattern: RegExp, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(stdout + stderr)) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}:\n${stdout}${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

describe('redlock-cli hold (built, real process)', () => {
  it('SIGINT releases the lock and exits 130', async () => {
    const p = cli('hold', 'e2e-lock', '-u', server.url, '--watchdog', '1s');
    await p.waitFor(/acquired "e2e-lock"/);
    expect(await raw.exists('e2e-lock')).toBe(1);
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(130);
    expect(await raw.exists('e2e-lock')).toBe(0);
    expect(p.out()).toMatch(/released "e2e-lock" after .* \(interrupted\)\n$/);
  });

  it('SIGHUP (terminal closed) releases the lock like SIGTERM', async () => {
    const p = cli('hold', 'e2e-hup', '-u', server.url, '--watchdog', '1s');
    await p.waitFor(/acquired "e2e-hup"/);
    p.child.kill('SIGHUP');
    expect(await p.exited).toBe(130);
    expect(await raw.exists('e2e-hup')).toBe(0);
  });

  it('SIGTERM with a command under the lock stops the command, then releases, exit 130', async () => {
    const script = "console.log('ready'); setInterval(() => {}, 1000)";
    const p = cli('hold', 'e2e-cmd', '-u', server.url, '--watchdog', '1s', '--', process.execPath, '-e', script);
    await p.waitFor(/^ready$/m);
    const pid = Number(/started pid (\d+)/.exec(p.err())?.[1]);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(130);
    expect(() => process.kill(pid, 0)).toThrow(); // the command is gone too
    expect(await raw.exists('e2e-cmd')).toBe(0);
    expect(p.out()).toBe('ready\n');
  });
});
