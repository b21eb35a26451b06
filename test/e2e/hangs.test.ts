// Issue 12, items 9 and 10: a server that accepts connections and never answers (a redis-server
// this file SIGSTOPs) or dies mid-wait must end every command with exit 3 naming host:port, and
// the first signal must end a command whatever it waits on. Every run is bounded by the helper's
// own SIGKILL, so a regression fails here instead of hanging the suite.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli } from '../helpers/cli-process.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';

const env = tempStateEnv();
const OWNER = '8a0c4c3c-8f0f-4d0a-9c61-2a4f3c1b7e11:1';
let paused: RedisServer;

beforeAll(async () => {
  ensureBuilt();
  paused = await startRedis();
  process.kill(paused.pid, 'SIGSTOP');
}, 60_000);

afterAll(async () => {
  killStartedClis();
  process.kill(paused.pid, 'SIGCONT');
  await paused?.stop();
});

// Each command as a user types it; --timeout 1s keeps the file short (the default is tested below).
const COMMANDS: readonly (readonly string[])[] = [
  ['acquire', 'k'],
  ['acquire', 'k', '--wait', '5s'],
  ['release', 'k', '--owner', OWNER],
  ['renew', 'k', '--lease', '5s', '--owner', OWNER],
  ['force-unlock', 'k', '--yes'],
  ['inspect', 'k'],
  ['ls'],
  ['doctor'],
  ['hold', 'k'],
];

describe('a server that never answers (SIGSTOPped)', () => {
  it.each(COMMANDS.map((c) => [c.join(' '), c] as const))('%s: exit 3 naming host:port', async (_name, args) => {
    const run = spawnCli([...args, '--url', paused.url, '--timeout', '1s'], env);
    expect(await run.exited).toBe(3);
    expect(run.err()).toBe(`redlock-cli: Redis at 127.0.0.1:${paused.port} did not answer within 1.0 s (is it paused or overloaded? raise --timeout if it is only slow)\n`);
  }, 60_000);

  it('without --timeout the default (5 s, as --help says) applies', async () => {
    const help = spawnCli(['acquire', '--help'], env);
    await help.exited;
    expect(help.out().replace(/\s+/g, ' ')).toContain('--timeout <duration> how long to wait for each Redis reply before exit 3 (default 5s)');
    const run = spawnCli(['inspect', 'k', '--url', paused.url], env);
    expect(await run.exited).toBe(3);
    expect(run.err()).toContain(`Redis at 127.0.0.1:${paused.port} did not answer within 5.0 s`);
  }, 60_000);

  it('the first SIGTERM ends a command stuck on a long --timeout (exit 143, says why)', async () => {
    const run = spawnCli(['acquire', 'k', '--url', paused.url, '--timeout', '10m'], env);
    // Started means node has loaded and is waiting on the paused server; a signal before the
    // launcher installs its handlers would kill node outright and prove nothing.
    await waitUntilConnected(run.pid, paused.port);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(143);
    expect(run.err()).toMatch(/still waiting 10 s after SIGTERM: stopped without finishing/);
  }, 60_000);
});

describe('a server that dies while acquire --wait waits', () => {
  it.each(['reentrant', 'fair', 'token'])('--kind %s: exit 3 "lost the connection" long before the wait ends', async (kind) => {
    const server = await startRedis();
    const raw = rawClient(server);
    try {
      const holder = spawnCli(['acquire', 'dies', '--kind', kind, '--lease', '10m', '--url', server.url], env);
      expect(await holder.exited).toBe(0);
      const waiter = spawnCli(['acquire', 'dies', '--kind', kind, '--wait', '10m', '--url', server.url], env, 120_000);
      // Its first attempt has run (the server saw its script) and, for the kinds woken by pub/sub,
      // it has subscribed: from here on it is waiting.
      await until(async () => {
        const attempted = /name=redlock-cli .*cmd=eval/.test(String(await raw.client('LIST')));
        return attempted && (kind === 'token' || ((await raw.call('PUBSUB', 'CHANNELS')) as string[]).length > 0);
      });
      raw.disconnect();
      process.kill(server.pid, 'SIGKILL');
      expect(await waiter.exited).toBe(3);
      expect(waiter.err()).toContain(`lost the connection to Redis at 127.0.0.1:${server.port}`);
    } finally {
      raw.disconnect();
      await server.stop();
    }
  }, 120_000);
});

describe('a server paused while acquire --wait waits', () => {
  // Issue 24: leaving the wait (UNSUBSCRIBE, the fair queue's exit) each waited one more --timeout
  // on the paused server after the last attempt had already timed out: --wait plus two (reentrant)
  // or three (fair) --timeouts. A long --timeout next to a short --wait keeps that apart from a
  // busy machine's noise: from the pause, the wait's rest plus one --timeout is at most
  // WAIT_S + TIMEOUT_S; the old code took at least WAIT_S + 2 * TIMEOUT_S less the time it took
  // to start waiting.
  const WAIT_S = 2;
  const TIMEOUT_S = 5;
  it.each(['reentrant', 'fair'])('--kind %s: exit 3 after the wait and one --timeout, not two or three', async (kind) => {
    const server = await startRedis();
    const raw = rawClient(server);
    let stopped = false;
    try {
      const holder = spawnCli(['acquire', 'paused', '--kind', kind, '--lease', '10m', '--url', server.url], env);
      expect(await holder.exited).toBe(0);
      const args = ['acquire', 'paused', '--kind', kind, '--wait', `${WAIT_S}s`, '--timeout', `${TIMEOUT_S}s`, '--url', server.url];
      const waiter = spawnCli(args, env, 120_000);
      // Subscribed: the waiter now sleeps until the wait ends (the holder's lease is far longer).
      await until(async () => ((await raw.call('PUBSUB', 'CHANNELS')) as string[]).length > 0);
      raw.disconnect();
      process.kill(server.pid, 'SIGSTOP');
      stopped = true;
      const paused = performance.now();
      expect(await waiter.exited).toBe(3);
      const seconds = (performance.now() - paused) / 1000;
      expect(waiter.err()).toContain(`Redis at 127.0.0.1:${server.port} did not answer within ${TIMEOUT_S}.0 s`);
      expect(seconds).toBeLessThan(WAIT_S + 1.5 * TIMEOUT_S);
    } finally {
      raw.disconnect();
      if (stopped) process.kill(server.pid, 'SIGCONT');
      await server.stop();
    }
  }, 120_000);
});

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1500 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
}

/** Waits until process `pid` has a TCP connection to `port` open (it loaded and reached Redis). */
async function waitUntilConnected(pid: number, port: number): Promise<void> {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (let i = 0; i < 1500; i++) {
    try {
      const inodes = readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/))
        .filter((f) => f[2]?.endsWith(hexPort)).map((f) => `socket:[${f[9]}]`);
      if (readdirSync(`/proc/${pid}/fd`).some((fd) => inodes.includes(readlinkSync(`/proc/${pid}/fd/${fd}`)))) return;
    } catch {
      // not there yet, or already gone (then the assertions that follow say so)
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
