import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../../src/commands/context.js';
import { resolveConnection, type ResolveInput } from '../../src/commands/resolve-endpoint.js';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { run } from '../../src/main.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';

// The one resolver: flags, environment and the host's target become one endpoint. The REPL hands
// a command its target as an endpoint (RunContext.target), never as words spliced into the line.

const quiet = { write: () => true };
const ctxOf = (env: Record<string, string | undefined>, extra: Partial<RunContext> = {}): RunContext => ({ stdout: quiet, stderr: quiet, env, ...extra });
const resolve = (flags: ResolveInput['flags'], ctx: RunContext, more: Partial<ResolveInput> = {}) =>
  resolveConnection(
    { flags, typed: (n) => (flags as Record<string, unknown>)[n] !== undefined, sandboxConnects: true, takesNodes: true, locks: true, ...more },
    ctx,
  );

describe('resolveConnection', () => {
  const env = tempStateEnv({});
  const host = { endpoint: parseEndpointUrl('rediss://app:pw@10.0.0.5:6380/2'), redlockNodes: undefined };

  it('a line that names no connection goes to the host target, with its credentials, db and TLS', async () => {
    const { endpoint } = await resolve({}, ctxOf(env, { target: host }));
    expect(endpoint).toMatchObject({ host: '10.0.0.5', port: 6380, tls: true, username: 'app', password: 'pw', db: 2 });
  });

  it("redis-cli's flags change one part of the host target; a URL or --target on the line replaces it", async () => {
    expect((await resolve({ db: '5' }, ctxOf(env, { target: host }))).endpoint).toMatchObject({ host: '10.0.0.5', db: 5, password: 'pw' });
    expect((await resolve({ url: 'redis://h:1' }, ctxOf(env, { target: host }))).endpoint).toMatchObject({ host: 'h', port: 1, tls: false });
    await expect(resolve({ target: 'nope' }, ctxOf(env, { target: host }))).rejects.toThrow(/no target "nope"/);
  });

  it('a Redlock host target gives lock commands its nodes and makes them Redlock; read commands read the first node', async () => {
    const nodes = [parseEndpointUrl('redis://127.0.0.1:1'), parseEndpointUrl('redis://127.0.0.1:2')];
    const ctx = ctxOf(env, { target: { endpoint: nodes[0]!, redlockNodes: nodes } });
    expect(await resolve({}, ctx)).toMatchObject({ redlockByDefault: true, nodes: [{ port: 1 }, { port: 2 }] });
    expect(await resolve({}, ctx, { locks: false })).toMatchObject({ redlockByDefault: false, nodes: undefined });
  });

  it('defaulted only when nothing named a server: race then starts a sandbox of its own', async () => {
    expect((await resolve({}, ctxOf(env))).defaulted).toBe(true);
    expect((await resolve({ port: '7000' }, ctxOf(env))).defaulted).toBe(false);
    expect((await resolve({}, ctxOf({ ...env, REDIS_URL: 'redis://h:1' }))).defaulted).toBe(false);
    expect((await resolve({}, ctxOf(env, { target: host }))).defaulted).toBe(false);
  });

  it("the REPL's attached sandbox is the line's sandbox (race asks nothing there)", async () => {
    const sandbox = { endpoint: parseEndpointUrl('redis://127.0.0.1:7001'), sandbox: 'demo' };
    expect(await resolve({}, ctxOf(env, { target: sandbox }))).toMatchObject({ sandbox: 'demo', defaulted: false });
    expect((await resolve({ url: 'redis://h:1' }, ctxOf(env, { target: sandbox }))).sandbox).toBeUndefined();
  });

  it('REDIS_URL, REDISCLI_AUTH and -a: the password source is kept, the typed one wins', async () => {
    const fromEnv = await resolve({}, ctxOf({ ...env, REDIS_URL: 'redis://h:1', REDISCLI_AUTH: 'envpw' }));
    expect(fromEnv.endpoint).toMatchObject({ host: 'h', password: 'envpw', passwordFrom: 'env' });
    const typed = await resolve({ pass: 'typed' }, ctxOf({ ...env, REDIS_URL: 'redis://h:1', REDISCLI_AUTH: 'envpw' }));
    expect(typed.endpoint).toMatchObject({ password: 'typed', passwordFrom: 'flag' });
  });

  it('a Sentinel URL, --sentinel, and TLS files only over TLS', async () => {
    const sentinel = await resolve({ url: 'rediss-sentinel://:pw@127.0.0.1:26379#m', cacert: '/ca.pem' }, ctxOf(env));
    expect(sentinel.endpoint).toMatchObject({ tls: true, password: 'pw', masterName: 'm', sentinels: [{ port: 26379 }], tlsFiles: { ca: '/ca.pem' } });
    await expect(resolve({ url: 'redis://h:1', cacert: '/ca.pem' }, ctxOf(env))).rejects.toThrow(/go with TLS/);
  });
});

describe('a command run with a host target', () => {
  let server: RedisServer;
  let raw: Redis;
  beforeAll(async () => {
    server = await startRedis();
    raw = new Redis(server.port, '127.0.0.1');
  });
  afterAll(async () => {
    raw.disconnect();
    await server?.stop();
  });

  it('connects to that endpoint with no connection option on its line', async () => {
    const env = tempStateEnv({});
    const target = { endpoint: parseEndpointUrl(`redis://127.0.0.1:${server.port}/3`) };
    const code = await run(['acquire', 'hosted', '--lease', '5s'], { stdout: quiet, stderr: quiet, env, target });
    expect(code).toBe(0);
    await raw.select(3);
    expect(await raw.exists('hosted')).toBe(1);
  });
});
