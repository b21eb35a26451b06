// Issue 24, item 2: an acquire that got no answer (exit 3: the server paused or overloaded) could
// still take the lock once the server caught up, and nobody could name its owner. Now the owner
// is printed and remembered before the exit, so `release <key>` frees what Redis applied late.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadOwners } from '../../src/state/owners.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

let server: RedisServer;
let raw: Redis;
beforeAll(async () => {
  server = await startRedis(); // its own: this file pauses it
  raw = new Redis(server.url, { lazyConnect: false });
});
afterEach(() => {
  try {
    process.kill(server.pid, 'SIGCONT'); // a failed test must not leave it paused
  } catch {
    // gone
  }
});
afterAll(async () => {
  raw?.disconnect();
  await server?.stop();
});

/** Bounded poll of a server fact. */
async function until(fact: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await fact()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never saw ${what}`);
}

describe('acquire --wait that gets no answer', () => {
  it('prints and remembers the owner before exit 3, so a late-applied lock can be released', async () => {
    const env = tempStateEnv();
    // Someone holds it: our waiter is refused, subscribes, and sleeps until the end of its --wait,
    // where it makes one last attempt. By then the holder's lease is over and the server paused.
    await raw.hset('late', '00000000-0000-4000-8000-000000000002:1', '1');
    await raw.pexpire('late', 60_000);
    const waiting = runCli(['acquire', 'late', '--wait', '5s', '--timeout', '500ms', '-u', server.url], env);
    await until(async () => /\bsub=1\b/.test(String(await raw.client('LIST'))), 'the waiter subscribed');
    await raw.pexpire('late', 1);
    process.kill(server.pid, 'SIGSTOP'); // the last attempt now goes unanswered

    const r = await waiting;
    expect(r.code).toBe(3);
    const owner = /held by (\S+:\d+) for up to 30\.0 s: remembered/.exec(r.stderr)?.[1];
    expect(owner, r.stderr).toBeDefined();
    expect(loadOwners(env).map((e) => [e.key, e.owner])).toEqual([['late', owner]]);

    process.kill(server.pid, 'SIGCONT');
    // The server applies what was on the wire: the lock is ours, and the remembered owner frees it.
    await until(async () => (await raw.hget('late', owner!)) === '1', 'the late acquire applied');
    const released = await runCli(['release', 'late', '-u', server.url], env);
    expect(released).toMatchObject({ code: 0, stdout: 'released "late"\n' });
    expect(await raw.exists('late')).toBe(0);
  }, 60_000);
});
