import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli } from '../helpers/run-cli.js';
import { ageKeyCaches, completionHome, exec, keyCacheDir, stubbedCli, stubLines } from './completion-home.js';

// Lock keys where a key goes, as bash asks for them on Tab: through the script's `redlock-cli
// __complete`, which answers from a cache file per connection in the state dir and refreshes it
// in a detached process once it is 3 s old. Real redis-server with a password; the current
// target (saved with its password) is where a line with no connection option goes.

const PASSWORD = 'pw-5f3a9c71';

let dir: string;
let script: string;
let env: NodeJS.ProcessEnv;
let server: RedisServer;
let cacheDir: string;

beforeAll(async () => {
  ({ dir, script, env } = await completionHome('bash'));
  // The current target decides where a bare line goes: REDIS_URL would win over it.
  delete env.REDIS_URL;
  server = await startRedis({ password: PASSWORD });
  const url = `redis://:${PASSWORD}@127.0.0.1:${server.port}`;
  for (const key of ['orders:1', 'orders:2', 'payments']) expect((await runCli(['acquire', key, '--lease', '10m', '-u', url], env)).code).toBe(0);
  expect((await runCli(['target', 'add', 'local', url, '--save-password'], env)).code).toBe(0);
  expect((await runCli(['target', 'use', 'local'], env)).code).toBe(0);
  cacheDir = keyCacheDir(env);
}, 60_000);

afterAll(async () => {
  // A refresh still running (the paused server's) ends by itself within its bound: wait for it
  // before its files go, so none outlives the test.
  for (let i = 0; i < 100 && refreshing().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  if (server) {
    process.kill(server.pid, 'SIGCONT');
    await server.stop();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

const COMPLETION_MS = 20_000;

/** COMPREPLY for these COMP_WORDS, the cursor in the last one. */
async function complete(words: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const program = `
    source "$1"; shift
    COMP_WORDS=(redlock-cli "$@"); COMP_CWORD=$#
    _redlock_cli_complete
    printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await exec('bash', ['--norc', '--noprofile', '-c', program, 'bash', script, ...words], {
    env: { ...env, ...extraEnv },
    timeout: COMPLETION_MS,
    killSignal: 'SIGKILL',
  });
  return stdout.split('\n').filter((l) => l !== '');
}

const cacheFiles = (): string[] => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => /^keys-[0-9a-f]+\.txt$/.test(f)) : []);
const refreshing = (): string[] => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith('.refreshing')) : []);
const ageCaches = (): Promise<number> => ageKeyCaches(env);
/** When each cache file's newest scan was read (its first scan line). */
const newest = (f: string): number => Number(/^scan\t.*\t(\d+)$/m.exec(readFileSync(join(cacheDir, f), 'utf8'))?.[1] ?? 0);
/** Waits (bounded) until a scan read after `since` is in a cache file and no refresh runs: the refresh has landed. */
async function refreshed(since: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (refreshing().length === 0 && cacheFiles().some((f) => newest(f) >= since)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the refresh did not write the cache within 20 s');
}

// Room for the first Tab of a line (no cache yet) on a busy machine: it waits for the refresh.
const COLD = { REDLOCK_CLI_COMPLETE_MS: '10000' };

describe('lock keys on Tab, from the cache', { timeout: 90_000 }, () => {
  it('lists the current target\'s locks after a first Tab, then answers from a 0600 file without a password in it', async () => {
    expect(await complete(['inspect', 'ord'], COLD)).toEqual(['orders:1', 'orders:2']);
    // The default budget from here on: the file answers.
    expect(await complete(['release', ''])).toEqual(['orders:1', 'orders:2', 'payments']);
    // The password on the line, in a URL or with -a, reaches the same server without ever being written.
    expect(await complete(['inspect', '-u', `redis://:${PASSWORD}@127.0.0.1:${server.port}`, 'pay'], COLD)).toEqual(['payments']);
    expect(await complete(['inspect', '-p', String(server.port), '-a', PASSWORD, 'pay'], COLD)).toEqual(['payments']);
    const files = cacheFiles();
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const f of files) {
      expect(f).not.toContain(PASSWORD);
      expect(readFileSync(join(cacheDir, f), 'utf8')).not.toContain(PASSWORD);
      expect(statSync(join(cacheDir, f)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
  });

  it('shows a changed keyspace once the refresh a stale Tab started has landed', async () => {
    expect((await runCli(['acquire', 'orders:3', '--lease', '10m'], env)).code).toBe(0);
    const since = await ageCaches();
    // Stale: it answers from the file at once, and starts the refresh for the next Tab.
    expect(await complete(['inspect', 'ord'])).toEqual(['orders:1', 'orders:2']);
    await refreshed(since);
    expect(await complete(['inspect', 'ord'])).toEqual(['orders:1', 'orders:2', 'orders:3']);
  });

  it('does not wait for a server that does not answer: cached keys at once, nothing for a new line, never file names', async () => {
    process.kill(server.pid, 'SIGSTOP');
    try {
      await ageCaches();
      // Its refresh is stuck on the paused server, up to its own bound; the Tab returned first
      // (the script started it in the background: it claims the file a moment later).
      expect(await complete(['inspect', 'ord'])).toEqual(['orders:1', 'orders:2', 'orders:3']);
      for (let i = 0; i < 200 && refreshing().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(refreshing().length).toBe(1);
      // A line with no cache yet (db 1 is another identity): nothing, while its refresh still waits.
      expect(await complete(['inspect', '-n', '1', 'ord'])).toEqual([]);
      expect(refreshing().length).toBe(2);
      // Nothing listens on port 1: nothing either.
      expect(await complete(['inspect', '-p', '1', ''])).toEqual([]);
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
  });

  it('answers a warm cache in the script alone; a stale one refreshes in the background, not waited for', async () => {
    const go = join(dir, 'go-warm');
    // redlock-cli here is a stub that records its arguments and holds until \`go\` exists.
    const stub = stubbedCli(dir, go);
    await ageKeyCaches(env, -60_000);
    try {
    expect(await complete(['inspect', 'ord'], stub.env)).toEqual(['orders:1', 'orders:2', 'orders:3']);
    expect(await complete(['inspect', '-u', `redis://:${PASSWORD}@127.0.0.1:${server.port}`, 'pay'], stub.env)).toEqual(['payments']);
    expect(await complete(['inspect', '-p', String(server.port), '-a', PASSWORD, 'pay'], stub.env)).toEqual(['payments']);
    expect(existsSync(stub.started)).toBe(false);
    await ageCaches();
    // Stale: the keys at once, and redlock-cli started beside the Tab, still held when it answered.
    expect(await complete(['inspect', 'ord'], stub.env)).toEqual(['orders:1', 'orders:2', 'orders:3']);
    expect(await stubLines(stub.started, 1)).toEqual(['__complete --keys bash =ord']);
    } finally {
      writeFileSync(go, '');
    }
    expect(await stubLines(stub.started, 2)).toEqual(['__complete --keys bash =ord', 'finished']);
  });

  it('keeps no password in the index of lines, whether typed, in REDIS_URL or saved with the target', async () => {
    const url = `redis://:${PASSWORD}@127.0.0.1:${server.port}`;
    expect(await complete(['inspect', 'pay'], { REDIS_URL: url, ...COLD })).toEqual(['payments']);
    const index = readFileSync(join(cacheDir, 'index'), 'utf8');
    // The current target's line, -u, -p with -a, and REDIS_URL's.
    expect(index.trim().split('\n').length).toBeGreaterThanOrEqual(4);
    expect(index).toContain(`redis://@127.0.0.1:${server.port}`);
    expect(index).not.toContain(PASSWORD);
    expect(statSync(join(cacheDir, 'index')).mode & 0o777).toBe(0o600);
  });

  it('never answers from the old target once target use chose another: the next Tab asks redlock-cli', async () => {
    const other = await startRedis();
    try {
      const otherUrl = `redis://127.0.0.1:${other.port}`;
      expect((await runCli(['acquire', 'other:1', '--lease', '10m', '-u', otherUrl], env)).code).toBe(0);
      expect((await runCli(['target', 'add', 'other', otherUrl], env)).code).toBe(0);
      expect((await runCli(['target', 'use', 'other'], env)).code).toBe(0);
      expect(await complete(['inspect', ''], COLD)).toEqual(['other:1']);
      const stub = stubbedCli(join(dir, 'use'));
      await ageKeyCaches(env, -60_000);
      // Learnt by that Tab: the script answers the new target's keys alone.
      expect(await complete(['inspect', ''], stub.env)).toEqual(['other:1']);
      expect(existsSync(stub.started)).toBe(false);
      // Back to the first target: not other's keys from the script, but redlock-cli asked.
      expect((await runCli(['target', 'use', 'local'], env)).code).toBe(0);
      expect(await complete(['inspect', ''], stub.env)).toEqual([]);
      expect(readFileSync(stub.started, 'utf8')).toBe('__complete --keys bash =\n');
      expect(await complete(['inspect', 'ord'], COLD)).toEqual(['orders:1', 'orders:2', 'orders:3']);
    } finally {
      await other.stop();
    }
  });
});
