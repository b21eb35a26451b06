import { spawn, type ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { rawClient } from '../helpers/lock-env.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

// Remembered owners go to a private state dir, never the user's.
const stateEnv = tempStateEnv();
let server: RedisServer;
let raw: Redis;
const spawned: ChildProcess[] = [];

beforeAll(async () => {
  ensureBuilt();
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
