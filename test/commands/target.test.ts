import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveConnection } from '../../src/commands/resolve-endpoint.js';
import { run } from '../../src/main.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const PASSWORD = 'Tr0ub4dor&3:@%/x';
let server: RedisServer;
let raw: Redis;
let env: Record<string, string | undefined>;
const bareUrl = (): string => `redis://127.0.0.1:${server.port}`;
const secretUrl = (): string => `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}`;
const file = (): string => join(env.XDG_CONFIG_HOME!, 'redlock-cli', 'targets.json');
const cli = (argv: string[], extra: Record<string, string> = {}) => runCli(argv, { ...env, ...extra });
const noPassword = (...texts: string[]): void => {
  for (const text of texts) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(encodeURIComponent(PASSWORD));
  }
};

beforeAll(async () => {
  server = await startRedis({ password: PASSWORD });
  raw = new Redis({ port: server.port, host: '127.0.0.1', password: PASSWORD, maxRetriesPerRequest: 1 });
  await raw.hset('t-lock', '00000000-0000-4000-8000-000000000001:1', '1');
  await raw.pexpire('t-lock', 60_000);
});

afterAll(async () => {
  raw?.disconnect();
  await server?.stop();
});

beforeEach(() => {
  // A fresh config dir per test: the user's ~/.config is never touched.
  env = tempStateEnv({ XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'redlock-cli-config-')) });
});

describe('target add / list / show / remove', () => {
  it('stores a URL without its password by default, in a 0600 file in a 0700 dir', async () => {
    const added = await cli(['target', 'add', 'prod', secretUrl()]);
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(`saved target "prod": redis://127.0.0.1:${server.port} (standalone)\n`);
    expect(added.stderr).toMatch(/password not saved: set REDLOCK_PASSWORD_PROD or REDISCLI_AUTH/);
    noPassword(added.stdout, added.stderr, readFileSync(file(), 'utf8'));
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.XDG_CONFIG_HOME!, 'redlock-cli')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual({
      version: 1,
      targets: { prod: { url: `redis://127.0.0.1:${server.port}`, auth: 'ask' } },
    });
  });

  it('--save-password keeps it in the file, which stays 0600 even if it was wider, and never prints it', async () => {
    await cli(['target', 'add', 'other', bareUrl()]);
    const { chmodSync } = await import('node:fs');
    chmodSync(file(), 0o644);
    const added = await cli(['target', 'add', 'prod', secretUrl(), '--save-password']);
    expect(added.code).toBe(0);
    expect(added.stderr).toMatch(/password saved in plain text in .*targets\.json \(mode 0600\)/);
    expect(readFileSync(file(), 'utf8')).toContain(encodeURIComponent(PASSWORD));
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    const list = await cli(['target', 'list']);
    const json = await cli(['target', 'list', '--json']);
    const show = await cli(['target', 'show', 'prod']);
    const showJson = await cli(['target', 'show', 'prod', '--json']);
    noPassword(added.stdout, added.stderr, list.stdout, list.stderr, json.stdout, show.stdout, showJson.stdout);
    expect(list.stdout.split('\n')[0]).toMatch(/^CURRENT\s+NAME\s+URL\s+TOPOLOGY\s+PASSWORD$/);
    expect(list.stdout).toMatch(new RegExp(`\\n\\s*prod\\s+redis://:\\*\\*\\*@127\\.0\\.0\\.1:${server.port}\\s+standalone\\s+saved in the targets file\\n`));
    expect(list.stdout).toMatch(/\n\s*other\s+redis:\/\/127\.0\.0\.1:\d+\s+standalone\s+none\n/);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ name: 'other', password: 'none' }),
      { name: 'prod', current: false, url: `redis://:***@127.0.0.1:${server.port}`, topology: 'standalone', sentinel: null, masterName: null, cluster: null, password: 'saved', passwordEnv: 'REDLOCK_PASSWORD_PROD' },
    ]);
    expect(show.stdout).toMatch(/^prod\n {2}url {7}redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\n {2}topology {2}standalone\n {2}password {2}saved in the targets file\n {2}file {6}\S+targets\.json\n$/);
  });

  it('normalises Sentinel and Cluster seeds and checks them like the connection flags', async () => {
    expect((await cli(['target', 'add', 's', 'rediss://app@h:6380', '--sentinel', ' a:1, [::1]:2', '--master-name', 'main'])).code).toBe(0);
    expect((await cli(['target', 'add', 'c', 'redis://h', '--cluster', 'n1:7000,n2:7001'])).code).toBe(0);
    const list = JSON.parse((await cli(['target', 'list', '--json'])).stdout) as { name: string; topology: string; sentinel: string | null }[];
    expect(list.map((t) => [t.name, t.topology, t.sentinel])).toEqual([['c', 'cluster', null], ['s', 'sentinel', 'a:1,[::1]:2']]);
    for (const bad of [
      ['target', 'add', 'x', 'redis://h', '--sentinel', 'a:1'],
      ['target', 'add', 'x', 'redis://h', '--master-name', 'm'],
      ['target', 'add', 'x', 'redis://h', '--cluster', 'a:1', '--sentinel', 'b:1', '--master-name', 'm'],
      ['target', 'add', 'x', 'http://h'],
      ['target', 'add', 'x', 'redis://h', '--cluster', 'nope'],
      ['target', 'add', 'bad name', 'redis://h'],
    ]) {
      const result = await cli(bad);
      expect(result.code, bad.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('takes the connection options every command takes: -h/-p/-a/--user/-n/--tls, TLS files, a Sentinel URL', async () => {
    const saved = () => JSON.parse(readFileSync(file(), 'utf8')).targets as Record<string, unknown>;
    expect((await cli(['target', 'add', 'tls', '-h', '10.0.0.5', '-p', '6380', '--user', 'app', '-n', '2', '--tls', '--cacert', '/ca.pem'])).code).toBe(0);
    expect(saved().tls).toEqual({ url: 'rediss://app@10.0.0.5:6380/2', tls: { ca: '/ca.pem' }, auth: 'none' });
    expect((await cli(['target', 'add', 'pw', bareUrl(), '-a', PASSWORD])).code).toBe(0);
    expect(saved().pw).toMatchObject({ url: bareUrl(), auth: 'ask' });
    const sentinel = await cli(['target', 'add', 'sen', 'rediss-sentinel://app@127.0.0.1:26379,127.0.0.1:26380/1#main', '--cacert', '/ca.pem']);
    expect(sentinel.code).toBe(0);
    expect(saved().sen).toEqual({ url: 'rediss://app@127.0.0.1:26379/1', sentinel: '127.0.0.1:26379,127.0.0.1:26380', masterName: 'main', tls: { ca: '/ca.pem' }, auth: 'none' });
    // A saved TLS target is used with its files: --insecure is not needed again, --cacert travels with it.
    const show = await cli(['target', 'show', 'sen', '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ topology: 'sentinel', masterName: 'main' });
    expect(await cli(['target', 'add', 'none'])).toMatchObject({ code: 2, stderr: expect.stringContaining('where does the target connect?') });
    expect(await cli(['target', 'add', 'x', 'redis://h:1', '--cacert', '/ca.pem'])).toMatchObject({ code: 2, stderr: expect.stringContaining('go with TLS') });
  });

  it('refuses to replace a name without --force; show and remove exit 4 for an unknown one', async () => {
    await cli(['target', 'add', 'prod', bareUrl()]);
    const again = await cli(['target', 'add', 'prod', 'redis://other:1']);
    expect(again).toMatchObject({ code: 2, stderr: 'redlock-cli: target "prod" exists: pass --force to replace it\n' });
    expect((await cli(['target', 'add', 'prod', 'redis://other:1', '--force'])).code).toBe(0);
    expect((await cli(['target', 'show', 'prod', '--json'])).stdout).toContain('redis://other:1');
    expect(await cli(['target', 'show', 'nope'])).toMatchObject({ code: 4, stderr: expect.stringContaining('no target "nope"') });
    expect(await cli(['target', 'remove', 'prod'])).toMatchObject({ code: 0, stdout: 'removed target "prod"\n' });
    expect(await cli(['target', 'rm', 'prod'])).toMatchObject({ code: 4, stderr: expect.stringMatching(/no target "prod": none saved yet/) });
    expect(await cli(['target', 'list'])).toMatchObject({ code: 0, stdout: '', stderr: expect.stringContaining('no targets saved yet') });
  });

  it('reports a damaged targets file by name', async () => {
    await cli(['target', 'add', 'prod', bareUrl()]);
    writeFileSync(file(), '{"version":1,"targets":{"prod":{"url":5}}}');
    const result = await cli(['target', 'list']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/targets\.json: targets\.prod\.url .*fix or remove it/);
  });
});

describe('--target on a command', () => {
  it('takes the password from REDLOCK_PASSWORD_<NAME>, then REDISCLI_AUTH; overrides REDIS_URL', async () => {
    await cli(['target', 'add', 'eu-prod', secretUrl()]);
    const viaName = await cli(['inspect', 't-lock', '--target', 'eu-prod'], { REDLOCK_PASSWORD_EU_PROD: PASSWORD, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(viaName.code).toBe(0);
    expect(viaName.stdout).toMatch(/^t-lock\s+Redisson lock/);
    const viaAuth = await cli(['inspect', 't-lock', '--target', 'eu-prod'], { REDISCLI_AUTH: PASSWORD });
    expect(viaAuth.code).toBe(0);
  });

  it('without a password source or a terminal: one line saying how to give it (exit 2)', async () => {
    await cli(['target', 'add', 'prod', secretUrl()]);
    const result = await cli(['inspect', 't-lock', '--target', 'prod']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^redlock-cli: target "prod" needs a password: set REDLOCK_PASSWORD_PROD \(or REDISCLI_AUTH\), or run on a terminal.*--save-password.*\n$/);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('a wrong password is an auth failure (exit 3) that never echoes it', async () => {
    await cli(['target', 'add', 'prod', secretUrl()]);
    const result = await cli(['inspect', 't-lock', '--target', 'prod'], { REDLOCK_PASSWORD_PROD: 'wrong-Pa55' });
    expect(result.code).toBe(3);
    expect(result.stderr).not.toContain('wrong-Pa55');
  });

  it('a saved password needs nothing else', async () => {
    await cli(['target', 'add', 'prod', secretUrl(), '--save-password']);
    const result = await cli(['inspect', 't-lock', '--target', 'prod', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)[0]).toMatchObject({ key: 't-lock', kind: 'reentrant' });
  });

  it('asks on a terminal without echo: backspace edits, Enter ends', async () => {
    await cli(['target', 'add', 'prod', secretUrl()]);
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: vi.fn() });
    let stdout = '';
    let stderr = '';
    const done = run(['inspect', 't-lock', '--target', 'prod'], {
      stdout: { write: (t: string) => (stdout += t), isTTY: false },
      stderr: { write: (t: string) => (stderr += t), isTTY: false },
      stdin,
      env,
    });
    await vi.waitFor(() => expect(stderr).toContain('Password for target "prod"'), { timeout: 5000 });
    stdin.write(`${PASSWORD.slice(0, -1)}Q`);
    stdin.write(`\u007f${PASSWORD.slice(-1)}\r`);
    expect(await done).toBe(0);
    expect(stderr).toBe(`Password for target "prod" (redis://127.0.0.1:${server.port}): \n`);
    expect(stdout).toMatch(/^t-lock\s+Redisson lock/);
    expect(stdin.setRawMode.mock.calls).toEqual([[true], [false]]);
  });

  it('Ctrl-C at the prompt interrupts (exit 130)', async () => {
    await cli(['target', 'add', 'prod', secretUrl()]);
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: vi.fn() });
    let stderr = '';
    const done = run(['inspect', 't-lock', '--target', 'prod'], {
      stdout: { write: () => true },
      stderr: { write: (t: string) => (stderr += t) },
      stdin,
      env,
    });
    await vi.waitFor(() => expect(stderr).toContain('Password for'), { timeout: 5000 });
    stdin.write('abc\u0003');
    expect(await done).toBe(130);
  });

  it('conflicts with --url / --sentinel / --cluster (exit 2); an unknown name exits 4', async () => {
    await cli(['target', 'add', 'prod', bareUrl()]);
    const both = await cli(['inspect', 'k', '--target', 'prod', '--url', bareUrl()]);
    expect(both).toMatchObject({ code: 2, stderr: 'redlock-cli: --target prod already says where to connect: drop --url\n' });
    const seeds = await cli(['ls', '--target', 'prod', '--cluster', 'a:1', '--sentinel', 'b:2']);
    expect(seeds).toMatchObject({ code: 2, stderr: expect.stringContaining('drop --sentinel and --cluster') });
    expect(await cli(['acquire', 'k', '--target', 'nope'])).toMatchObject({ code: 4, stderr: expect.stringContaining('no target "nope"') });
  });

  it('resolves to the saved Sentinel or Cluster endpoint, with its credentials', async () => {
    await cli(['target', 'add', 's', 'redis://app@h:1', '--sentinel', 'a:1,b:2', '--master-name', 'main']);
    await cli(['target', 'add', 'c', 'redis://h:1', '--cluster', 'n1:7000']);
    const resolve = async (name: string) => {
      const quiet = { write: () => true };
      const input = { flags: { target: name }, typed: (n: string) => n === 'target', sandboxConnects: true, takesNodes: false, locks: false };
      return (await resolveConnection(input, { stdout: quiet, stderr: quiet, env })).endpoint;
    };
    expect(await resolve('s')).toMatchObject({ host: 'h', port: 1, username: 'app', sentinels: [{ host: 'a', port: 1 }, { host: 'b', port: 2 }], masterName: 'main' });
    expect(await resolve('c')).toMatchObject({ host: 'h', port: 1, clusterNodes: [{ host: 'n1', port: 7000 }] });
    expect((await resolve('c')).sentinels).toBeUndefined();
  });
});
