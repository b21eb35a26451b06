// Issue 12, smaller rails: Redis's own error replies (ACL NOPERM, CLUSTERDOWN, MOVED, a hash value
// that is not a number) and a sandbox binary that is not redis-server ended as exit 1 "unexpected
// error". Each must be one line that says what to do, with the exit code docs/safety.md documents.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const env = tempStateEnv();
const OWNER = '6f1c2b8e-1f7a-4c1e-9d8e-0a1b2c3d4e5f:1';
const servers: RedisServer[] = [];
const clients: Redis[] = [];

async function server(args: string[] = []): Promise<{ server: RedisServer; raw: Redis }> {
  const s = await startRedis({ args });
  servers.push(s);
  const raw = rawClient(s);
  clients.push(raw);
  return { server: s, raw };
}

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await Promise.all(servers.map((s) => s.stop()));
});

/** One line on stderr, never "unexpected", never a stack. */
function oneLine(stderr: string): string {
  expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(stderr).not.toMatch(/unexpected error|\n\s+at /);
  return stderr;
}

describe('Redis error replies', () => {
  let plain: { server: RedisServer; raw: Redis };
  beforeAll(async () => {
    plain = await server();
  }, 60_000);

  it('ACL NOPERM: exit 10, names the server and the exact ACL rule to grant, no password', async () => {
    await plain.raw.call('ACL', 'SETUSER', 'noscripts', 'on', '>pw-Xy7', '~*', '&*', '+@all', '-@scripting');
    const url = `redis://noscripts:pw-Xy7@127.0.0.1:${plain.server.port}`;
    const { code, stderr } = await runCli(['acquire', 'acl-k', '--url', url], env);
    expect(code).toBe(10);
    expect(oneLine(stderr)).toMatch(new RegExp(`the Redis user noscripts at 127.0.0.1:${plain.server.port} may not run EVAL(SHA)?: grant it with ACL SETUSER noscripts \\+eval`));
    expect(stderr).not.toContain('pw-Xy7');
    expect(await plain.raw.exists('acl-k')).toBe(0);
  });

  it('a hash whose hold count is not a number: exit 2, points at inspect, nothing changed', async () => {
    await plain.raw.hset('bad-count', OWNER, 'lots');
    await plain.raw.pexpire('bad-count', 600_000);
    const before = await plain.raw.dump('bad-count');
    const { code, stderr } = await runCli(['acquire', 'bad-count', '--owner', OWNER, '--url', plain.server.url], env);
    expect(code).toBe(2);
    oneLine(stderr);
    expect(await plain.raw.dump('bad-count')).toEqual(before);
  });

  it('a Cluster node that serves no slots: exit 3, one line saying so (not that it did not answer), by --url or --cluster', async () => {
    const { server: node } = await server(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf']);
    const said = `redlock-cli: the Redis Cluster at 127.0.0.1:${node.port} serves no slots (CLUSTER SLOTS is empty): assign them`;
    for (const target of [['--url', node.url], ['--cluster', `127.0.0.1:${node.port}`]]) {
      const { code, stderr } = await runCli(['acquire', 'cd-k', ...target], env);
      expect(code).toBe(3);
      expect(oneLine(stderr)).toContain(said);
    }
  }, 60_000);

  it('Cluster seeds that do not answer: "Redis Cluster" said once, then the seeds', async () => {
    const { code, stderr } = await runCli(['ls', '--cluster', '127.0.0.1:1,127.0.0.1:2'], env);
    expect(code).toBe(3);
    expect(oneLine(stderr)).toBe('redlock-cli: cannot reach Redis Cluster at 127.0.0.1:1,127.0.0.1:2: no seed node answered\n');
  });

  it('a --url naming a Cluster node that does not own the slot: the redirect (MOVED) is followed, no error', async () => {
    const a = await server(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf']);
    const b = await server(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf']);
    await a.raw.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    await b.raw.call('CLUSTER', 'MEET', '127.0.0.1', String(a.server.port));
    // Gossip tells b that a owns every slot: from then on b answers MOVED.
    for (let i = 0; i < 500; i++) {
      const reply = await b.raw.get('moved-k').catch((err: Error) => err.message);
      if (typeof reply === 'string' && reply.startsWith('MOVED')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const { code, stderr } = await runCli(['acquire', 'moved-k', '--lease', '30s', '--url', b.server.url], env);
    expect({ code, stderr }).toMatchObject({ code: 0 });
    expect(await a.raw.exists('moved-k')).toBe(1);
  }, 60_000);
});

describe('sandbox up with a binary that is not redis-server', () => {
  it('--redis-server /bin/false: exit 3, one line saying what to check, nothing left running', async () => {
    const { code, stderr } = await runCli(['sandbox', 'up', '--redis-server', '/bin/false', '--name', 'not-redis'], env);
    expect(code).toBe(3);
    expect(oneLine(stderr)).toMatch(/exited with code 1 before answering .*check that --redis-server is a working redis-server/);
    const status = await runCli(['sandbox', 'status', 'not-redis'], env);
    expect(status.code).toBe(4);
  }, 60_000);
});
