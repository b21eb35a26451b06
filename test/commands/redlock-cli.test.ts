import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

let servers: RedisServer[];
let env: Record<string, string | undefined>;

beforeAll(async () => {
  servers = await Promise.all([startRedis(), startRedis(), startRedis()]);
  env = tempStateEnv();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

const nodesFlag = (): string => servers.map((s) => `redis://127.0.0.1:${s.port}`).join(',');

describe('acquire --kind redlock from the CLI', () => {
  it('prints a per-node vote table and the validity, and release clears every node', async () => {
    const r = await runCli(['acquire', 'pay', '--kind', 'redlock', '--nodes', nodesFlag(), '--lease', '5s'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^acquired "pay" \(redlock\) as [0-9a-f]{32}, lease 5\.0 s, valid for 4\.\d s\n$/);
    const table = r.stderr.split('\n');
    expect(table[0]).toMatch(/^node\s+vote\s+time$/);
    for (const s of servers) expect(r.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${s.port}\\s+locked`));
    expect((await runCli(['release', 'pay', '--kind', 'redlock', '--nodes', nodesFlag()], env)).code).toBe(0);
    for (const s of servers) {
      const c = new Redis({ port: s.port });
      expect(await c.exists('pay')).toBe(0);
      c.disconnect();
    }
  });

  it('a Redisson hash under --kind token is refused untouched (exit 2)', async () => {
    const c = new Redis({ port: servers[0]!.port });
    await c.hset('acct', '11111111-1111-4111-8111-111111111111:1', '1');
    const r = await runCli(['acquire', 'acct', '--kind', 'token', '-u', `redis://127.0.0.1:${servers[0]!.port}`], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is a Redisson lock (reentrant), not a token lock');
    expect(await c.hgetall('acct')).toEqual({ '11111111-1111-4111-8111-111111111111:1': '1' });
    expect(await c.pttl('acct')).toBe(-1);
    c.disconnect();
  });

  it('still locks with one node down from the start; the vote table shows its error', async () => {
    const down = await startRedis();
    await down.stop();
    const nodes = `${nodesFlag().split(',').slice(0, 2).join(',')},redis://127.0.0.1:${down.port}`;
    const r = await runCli(['acquire', 'ship', '--kind', 'redlock', '--nodes', nodes, '--lease', '5s', '--json'], env);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.votes.map((v: { result: string }) => v.result)).toEqual(['locked', 'locked', 'error']);
    expect(out.votes[2].detail).toContain('connection refused');
    expect((await runCli(['release', 'ship', '--kind', 'redlock', '--nodes', nodes], env)).code).toBe(0);
  });

  it('exits 3 when a majority of nodes is unreachable', async () => {
    const down = await Promise.all([startRedis(), startRedis()]);
    await Promise.all(down.map((d) => d.stop()));
    const nodes = [servers[0]!.port, ...down.map((d) => d.port)].map((p) => `redis://127.0.0.1:${p}`).join(',');
    const r = await runCli(['acquire', 'ship', '--kind', 'redlock', '--nodes', nodes], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^redlock-cli: only 1 of 3 Redlock nodes answered, a majority is needed: /);
  });
});
