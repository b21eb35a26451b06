import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { selfSignedCert } from '../helpers/tls-cert.js';
import { freePort, startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { startSentinel, type SentinelTopology } from '../helpers/topologies.js';

// Connections the way redis-cli users type them: every connection flag, before and after the
// command, must reach the server it names with the credentials it gives. Each row acquires a key
// of its own; the test then reads that key on the server the row meant (and db), so a flag that
// was ignored (landing on the decoy or in db 0) or credentials that were dropped (NOAUTH) fail.

const PASS = 'pa$$word:1%@'; // $, :, % and @ survive URLs only when encoded right
const ACL_PASS = 'acl-secret-7';
let secured: RedisServer; // requirepass
let acl: RedisServer; // default user off; user app
let tls: RedisServer; // TLS port with client certificates required
let tlsPort: number;
let sentinel: SentinelTopology; // primary with requirepass, through one sentinel
let dir: string;
const env = tempStateEnv({ XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'redlock-habits-config-')) });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'redlock-habits-'));
  selfSignedCert(dir);
  tlsPort = await freePort();
  [secured, acl, tls, sentinel] = await Promise.all([
    startRedis({ password: PASS }),
    startRedis(),
    startRedis({
      args: [
        '--tls-port', String(tlsPort), '--tls-cert-file', join(dir, 'cert.pem'), '--tls-key-file', join(dir, 'key.pem'),
        '--tls-ca-cert-file', join(dir, 'cert.pem'), '--tls-auth-clients', 'yes',
      ],
    }),
    startSentinel({ password: PASS }),
  ]);
  // ACL: a user `app`; the default user switched off, so only app's credentials get in.
  const admin = new Redis({ port: acl.port, host: '127.0.0.1' });
  await admin.call('ACL', 'SETUSER', 'app', 'on', `>${ACL_PASS}`, '~*', '&*', '+@all');
  await admin.call('ACL', 'SETUSER', 'default', 'off');
  admin.disconnect();
  await runCli(['target', 'add', 'saved', `redis://127.0.0.1:${secured.port}`], env);
}, 60_000);

afterAll(async () => {
  await Promise.all([secured?.stop(), acl?.stop(), tls?.stop(), sentinel?.stop()]);
  rmSync(dir, { recursive: true, force: true });
  rmSync(env.XDG_CONFIG_HOME!, { recursive: true, force: true });
});

/** Reads a key on a server with its own credentials (the test's, not the tool's). */
async function exists(port: number, key: string, opts: { db?: number; password?: string | undefined; username?: string } = {}): Promise<boolean> {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, ...opts });
  try {
    await c.connect();
    return (await c.exists(key)) === 1;
  } finally {
    c.disconnect();
  }
}

interface Row {
  readonly name: string;
  readonly flags: () => string[];
  readonly extraEnv?: () => Record<string, string>;
  /** Where the key must land. */
  readonly at: () => { port: number; db?: number; password?: string; username?: string };
}

const rows: Row[] = [
  { name: '-u with the password in the URL', flags: () => ['-u', `redis://:${encodeURIComponent(PASS)}@127.0.0.1:${secured.port}`], at: () => ({ port: secured.port, password: PASS }) },
  { name: '-h -p -a', flags: () => ['-h', '127.0.0.1', '-p', String(secured.port), '-a', PASS], at: () => ({ port: secured.port, password: PASS }) },
  { name: '--host --port --pass', flags: () => ['--host', '127.0.0.1', '--port', String(secured.port), '--pass', PASS], at: () => ({ port: secured.port, password: PASS }) },
  { name: '-p with REDISCLI_AUTH', flags: () => ['-p', String(secured.port)], extraEnv: () => ({ REDISCLI_AUTH: PASS }), at: () => ({ port: secured.port, password: PASS }) },
  { name: '-u without password, REDISCLI_AUTH', flags: () => ['-u', `redis://127.0.0.1:${secured.port}`], extraEnv: () => ({ REDISCLI_AUTH: PASS }), at: () => ({ port: secured.port, password: PASS }) },
  { name: '-n picks the database', flags: () => ['-p', String(secured.port), '-a', PASS, '-n', '3'], at: () => ({ port: secured.port, password: PASS, db: 3 }) },
  { name: '-u URL plus -n override', flags: () => ['-u', `redis://127.0.0.1:${secured.port}/1`, '-n', '4'], extraEnv: () => ({ REDISCLI_AUTH: PASS }), at: () => ({ port: secured.port, password: PASS, db: 4 }) },
  { name: '--user -a (ACL user)', flags: () => ['-p', String(acl.port), '--user', 'app', '-a', ACL_PASS], at: () => ({ port: acl.port, username: 'app', password: ACL_PASS }) },
  { name: 'ACL user in the URL, REDISCLI_AUTH', flags: () => ['-u', `redis://app@127.0.0.1:${acl.port}`], extraEnv: () => ({ REDISCLI_AUTH: ACL_PASS }), at: () => ({ port: acl.port, username: 'app', password: ACL_PASS }) },
  { name: '--target with -a', flags: () => ['--target', 'saved', '-a', PASS], at: () => ({ port: secured.port, password: PASS }) },
  { name: '--target with REDISCLI_AUTH', flags: () => ['--target', 'saved'], extraEnv: () => ({ REDISCLI_AUTH: PASS }), at: () => ({ port: secured.port, password: PASS }) },
  { name: '--sentinel --master-name with REDISCLI_AUTH', flags: () => ['--sentinel', `127.0.0.1:${sentinel.sentinelPort}`, '--master-name', 'mymaster'], extraEnv: () => ({ REDISCLI_AUTH: PASS }), at: () => ({ port: sentinel.nodes[0]!.port, password: PASS }) },
  { name: 'redis-sentinel:// URL (as sandbox up prints it) with -a', flags: () => ['-u', `redis-sentinel://127.0.0.1:${sentinel.sentinelPort}#mymaster`, '-a', PASS], at: () => ({ port: sentinel.nodes[0]!.port, password: PASS }) },
  { name: '--tls --cacert --cert --key', flags: () => ['-p', String(tlsPort), '--tls', '--cacert', join(dir, 'cert.pem'), '--cert', join(dir, 'cert.pem'), '--key', join(dir, 'key.pem')], at: () => ({ port: tls.port }) },
  { name: 'rediss:// with --insecure and a client certificate', flags: () => ['-u', `rediss://127.0.0.1:${tlsPort}`, '--insecure', '--cert', join(dir, 'cert.pem'), '--key', join(dir, 'key.pem')], at: () => ({ port: tls.port }) },
];

describe('redis-cli connection flags, before and after the command', () => {
  let n = 0;
  for (const row of rows) {
    for (const where of ['before', 'after'] as const) {
      it(`${row.name} (${where} the command)`, async () => {
        const key = `habit:${++n}`;
        const flags = row.flags();
        const argv = where === 'before' ? [...flags, 'acquire', key, '--lease', '1m'] : ['acquire', key, '--lease', '1m', ...flags];
        const r = await runCli(argv, { ...env, ...row.extraEnv?.() });
        expect(r.stderr).not.toContain('redlock-cli:');
        expect(r.code).toBe(0);
        const at = row.at();
        expect(await exists(at.port, key, { db: at.db ?? 0, ...(at.password ? { password: at.password } : {}), ...(at.username ? { username: at.username } : {}) })).toBe(true);
        if (at.db !== undefined) expect(await exists(at.port, key, { db: 0, password: at.password })).toBe(false);
        expect(r.stdout + r.stderr).not.toContain(PASS);
        expect(r.stdout + r.stderr).not.toContain(ACL_PASS);
      });
    }
  }
});

/** A stdin that looks like a terminal: the no-echo prompt reads what is pushed. */
function fakeTerminal(): PassThrough & { isTTY: boolean; setRawMode(raw: boolean): void; raw: boolean[] } {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, raw: [] as boolean[] });
  return Object.assign(stdin, { setRawMode: (raw: boolean) => void stdin.raw.push(raw) });
}

describe('passwords that stay out of argv', () => {
  it('--askpass asks on the terminal without echo, and wins over REDISCLI_AUTH', async () => {
    const stdin = fakeTerminal();
    let stderr = '';
    const done = run(['-p', String(secured.port), '--askpass', 'acquire', 'asked', '--lease', '1m'], {
      stdout: { write: () => true },
      stderr: { write: (t: string) => (stderr += t), isTTY: true },
      stdin,
      env: { ...env, REDISCLI_AUTH: 'not-this-one' },
    });
    for (const until = Date.now() + 15_000; !stderr.includes('password') && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    stdin.write(`${PASS}\r`);
    expect(await done).toBe(0);
    expect(stdin.raw).toEqual([true, false]);
    expect(stderr).toContain('Please input password: ');
    expect(stderr).not.toContain(PASS);
    expect(await exists(secured.port, 'asked', { password: PASS })).toBe(true);
  });

  it('--askpass without a terminal says to use REDISCLI_AUTH (exit 2)', async () => {
    const r = await runCli(['inspect', 'k', '-p', String(secured.port), '--askpass'], env);
    expect(r).toMatchObject({ code: 2, stderr: 'redlock-cli: --askpass needs a terminal to ask on: set REDISCLI_AUTH instead\n' });
  });

  it('no password: the server asked for one (NOAUTH), exit 3', async () => {
    const r = await runCli(['inspect', 'k', '-p', String(secured.port)], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `redlock-cli: Redis at 127.0.0.1:${secured.port} asked for a password (NOAUTH) and none was given: set REDISCLI_AUTH, use --askpass, or put it in the URL\n`,
    );
  });

  it('nothing the tool writes to its state or config files holds a password', async () => {
    await runCli(['acquire', 'stateful', '-p', String(secured.port), '--lease', '1m'], { ...env, REDISCLI_AUTH: PASS });
    await runCli(['acquire', 'stateful2', '-u', `redis://:${encodeURIComponent(PASS)}@127.0.0.1:${secured.port}`, '--lease', '1m'], env);
    await runCli(['target', 'add', 'typed', `redis://:${encodeURIComponent(PASS)}@127.0.0.1:${secured.port}`], env);
    const files = (root: string): string[] =>
      readdirSync(root, { recursive: true, encoding: 'utf8' }).map((f) => join(root, f)).filter((f) => statSync(f).isFile());
    const all = [...files(env.XDG_STATE_HOME!), ...files(env.XDG_CONFIG_HOME!)];
    expect(all.length).toBeGreaterThan(0);
    for (const file of all) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toContain(PASS);
      expect(text, file).not.toContain(encodeURIComponent(PASS));
    }
  });
});

describe('help and environment', () => {
  it('-h is the host; --help alone prints help', async () => {
    const help = await runCli(['ls', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('-h, --host <host>');
    expect(await runCli(['ls', '-h'], env)).toMatchObject({
      code: 2,
      stderr: "redlock-cli: option '-h, --host <host>' argument missing (-h is the host, as in redis-cli: help is --help)\n",
    });
    const host = await runCli(['ls', '-h', '127.0.0.1', '-p', '1'], env);
    expect(host).toMatchObject({ code: 3, stderr: expect.stringContaining('cannot connect to Redis at 127.0.0.1:1') });
  });

  it('an empty REDIS_URL is ignored (the default, or the flags, apply)', async () => {
    const r = await runCli(['inspect', 'nothing-here', '-p', String(secured.port), '-a', PASS], { ...env, REDIS_URL: '' });
    expect(r).toMatchObject({ code: 4, stderr: 'nothing-here  does not exist\n' });
  });

  it('a connection option on a command that does not connect is a usage error', async () => {
    const r = await runCli(['-u', 'redis://127.0.0.1:1', 'completion', 'bash'], env);
    expect(r).toMatchObject({ code: 2, stderr: 'redlock-cli: completion does not connect to Redis: drop --url\n' });
  });
});
