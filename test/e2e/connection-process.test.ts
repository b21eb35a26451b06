import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';

// The connection as a process sees it: an unreachable server ends the process right after the
// message (ioredis's 2 s disconnect timer used to keep it alive), and a password given through
// REDISCLI_AUTH never shows in the argv (ps) of the tool or of anything it starts.

const PASS = 'ps-secret-9f3';
const stateEnv = tempStateEnv();
let server: RedisServer;
const spawned: ChildProcess[] = [];

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis({ password: PASS });
}, 60_000);
afterAll(async () => {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await server?.stop();
});

function cli(args: readonly string[], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...stateEnv, ...extraEnv } });
  spawned.push(child);
  let output = '';
  let firstStderrAt: number | undefined;
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    firstStderrAt ??= performance.now();
    output += d.toString();
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: performance.now() })));
  return { child, exited, output: () => output, firstStderrAt: () => firstStderrAt };
}

/** The argv of every process on the machine, as ps shows them. */
function allCommandLines(): string[] {
  const lines: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      lines.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      // gone meanwhile
    }
  }
  return lines;
}

describe('fail fast means exit fast', () => {
  it('an unreachable server: the process ends within half a second of the message (ioredis kept it 2 s)', async () => {
    const p = cli(['inspect', 'k', '-u', 'redis://127.0.0.1:1']);
    const { code, at } = await p.exited;
    expect(code).toBe(3);
    expect(p.output()).toContain('cannot connect to Redis at 127.0.0.1:1: connection refused');
    // 500 ms is the promise; the margin is for a loaded CI box. The old timer alone took 2000 ms.
    expect(at - p.firstStderrAt()!).toBeLessThan(1000);
  });
});

describe('passwords and ps', () => {
  it('with REDISCLI_AUTH neither the tool nor the command it holds a lock for shows the password in ps', async () => {
    const p = cli(['hold', 'ps-lock', '-p', String(server.port), '--', process.execPath, '-e', 'setTimeout(() => {}, 10000)'], { REDISCLI_AUTH: PASS });
    // The held command starts after "acquired" is printed: wait (bounded) until ps shows it,
    // beside the tool's own command line, which carries the same script as an argument.
    const heldRunning = () => allCommandLines().filter((l) => l.includes('setTimeout(() => {}, 10000)')).length >= 2;
    for (const until = Date.now() + 15_000; !(heldRunning() && /acquired "ps-lock"/.test(p.output())) && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(p.output()).toContain('acquired "ps-lock"');
    expect(heldRunning()).toBe(true);
    const lines = allCommandLines();
    expect(lines.filter((l) => l.includes(PASS))).toEqual([]);
    p.child.kill('SIGINT');
    expect((await p.exited).code).toBe(130);
    expect(p.output()).not.toContain(PASS);
  });
});
