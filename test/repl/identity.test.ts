// The two RunContext hooks the REPL fills: a client identity that lock commands use when no
// --owner is given, and a connection pool that keeps one connection per client and target.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../../src/commands/context.js';
import { run } from '../../src/main.js';
import { createConnectionPool, type ConnectionPool } from '../../src/redis/pool.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { rawClient } from '../helpers/lock-env.js';
import { tempStateEnv } from '../helpers/run-cli.js';

let server: RedisServer;
const env = tempStateEnv();
const pools: ConnectionPool[] = [];

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.closeAll()));
  await server.stop();
});

function client(name: string, uuid: string) {
  const pool = createConnectionPool(`redlock-cli:repl:${name}`);
  pools.push(pool);
  const identity = { client: uuid, thread: '1' };
  return {
    pool,
    async run(...argv: string[]) {
      let stdout = '';
      let stderr = '';
      const ctx: RunContext = {
        stdout: { write: (t: string) => (stdout += t) },
        stderr: { write: (t: string) => (stderr += t) },
        env,
        connections: pool,
        identity,
      };
      const code = await run([...argv, '--url', server.url], ctx);
      return { code, stdout, stderr };
    },
  };
}

const A_UUID = '0a0a0a0a-0000-4000-8000-00000000000a';
const B_UUID = '0b0b0b0b-0000-4000-8000-00000000000b';

describe('a REPL client identity', () => {
  const a = client('A', A_UUID);
  const b = client('B', B_UUID);

  it('acquires as <uuid>:<thread>, re-enters as itself and is refused as another client', async () => {
    expect((await a.run('acquire', 'k1', '--lease', '10s')).code).toBe(0);
    const again = await a.run('acquire', 'k1', '--lease', '10s', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ acquired: true, count: 2, owner: `${A_UUID}:1` });
    const other = await b.run('acquire', 'k1', '--json');
    expect(other.code).toBe(5);
    expect(JSON.parse(other.stdout)).toMatchObject({ acquired: false, holders: [{ owner: `${A_UUID}:1`, count: 2 }] });
  });

  it('releases its own lock without --owner, and cannot release another client’s', async () => {
    const wrong = await b.run('release', 'k1');
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toContain(`${B_UUID}:1 does not hold it`);
    expect((await a.run('release', 'k1', '--all-holds')).code).toBe(0);
    const redis = rawClient(server);
    expect(await redis.exists('k1')).toBe(0);
    redis.disconnect();
  });

  it('uses the UUID as its token for token locks', async () => {
    const got = await a.run('acquire', 't1', '--kind', 'token', '--json');
    expect(JSON.parse(got.stdout)).toMatchObject({ acquired: true, owner: A_UUID.replace(/-/g, '') });
    expect((await a.run('release', 't1', '--kind', 'token')).code).toBe(0);
  });
});

describe('the connection pool', () => {
  it('keeps one connection per client and target across commands, and closes them all at the end', async () => {
    const c = client('C', '0c0c0c0c-0000-4000-8000-00000000000c');
    for (let i = 0; i < 4; i++) expect((await c.run('acquire', `p${i}`, '--lease', '5s')).code).toBe(0);
    expect((await c.run('hold', 'p9', '--for', '100ms')).code).toBe(0);
    const redis = rawClient(server);
    const named = async () => ((await redis.call('CLIENT', 'LIST')) as string).split('\n').filter((l) => l.includes('name=redlock-cli:repl:C ')).length;
    expect(await named()).toBe(1);
    expect(c.pool.size).toBe(1);
    await c.pool.closeAll();
    // QUIT has been answered; the server drops the client right after.
    for (const until = Date.now() + 10_000; (await named()) > 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    expect(await named()).toBe(0);
    // A command after closeAll connects again.
    expect((await c.run('release', 'p0')).code).toBe(0);
    expect(await named()).toBe(1);
    redis.disconnect();
  });
});
