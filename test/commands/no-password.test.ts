// Issue 12, item 13: `race --json` printed the Redis password (plan.target.url). No output of any
// command, JSON or text, success or error, may carry the password it was given in the URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const PASSWORD = 'pw-Zq81-never-shown';
const env = tempStateEnv();
let server: RedisServer;
let url: string;

beforeAll(async () => {
  server = await startRedis({ password: PASSWORD });
  url = `redis://:${PASSWORD}@127.0.0.1:${server.port}`;
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('the password in --url never reaches any output', () => {
  const runs: readonly (readonly string[])[] = [
    ['race', 'pw-race-json', '--clients', '2', '--duration', '300ms', '--json', '--yes'],
    ['race', 'pw-race', '--clients', '2', '--duration', '300ms', '--yes'],
    ['acquire', 'pw-lock', '--lease', '5s', '--json'],
    ['acquire', 'pw-lock', '--lease', '5s'],
    ['inspect', 'pw-lock', '--json'],
    ['inspect', 'pw-lock'],
    ['ls', '--json'],
    ['doctor', '--json'],
    ['hold', 'pw-held', '--for', '200ms', '--json'],
    ['release', 'pw-lock', '--json'],
  ];
  it.each(runs.map((r) => [r.join(' '), r] as const))('%s', async (_name, args) => {
    const { code, stdout, stderr } = await runCli([...args, '--url', url], env);
    expect([0, 5, 6]).toContain(code);
    expect(stdout + stderr).not.toContain(PASSWORD);
    if (args.includes('--json') && args[0] === 'race') expect(stdout).toContain(`redis://:***@127.0.0.1:${server.port}`);
  }, 60_000);

  it('nor a failure: wrong password, unknown database, refused port', async () => {
    for (const bad of [`redis://:${PASSWORD}x@127.0.0.1:${server.port}`, `redis://:${PASSWORD}@127.0.0.1:1`]) {
      const { code, stdout, stderr } = await runCli(['acquire', 'pw-x', '--url', bad], env);
      expect(code).toBe(3);
      expect(stdout + stderr).not.toContain(PASSWORD);
    }
  }, 60_000);
});
