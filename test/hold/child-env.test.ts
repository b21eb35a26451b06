// Issue 24, item 4: `hold -- cmd` passed REDISCLI_AUTH and the other password variables on to the
// command. The command is someone else's program: it gets the lock's variables, not our credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutPasswords } from '../../src/hold/child-env.js';
import { ensureBuilt } from '../helpers/build.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const PASSWORD = 'child-must-not-see-this';
let server: RedisServer;
beforeAll(async () => {
  ensureBuilt(); // the guard runs from dist/
  server = await startRedis({ password: PASSWORD });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('the environment of the command under the lock', () => {
  it.each([
    ['REDISCLI_AUTH', 'pw', false],
    ['REDIS_PASSWORD', 'pw', false],
    ['REDLOCK_PASSWORD_PROD', 'pw', false],
    ['REDIS_URL', 'redis://:pw@10.0.0.1:6379', false],
    ['REDIS_URL', 'redis://app:pw@10.0.0.1:6379/2', false],
    ['REDIS_URL', 'redis://10.0.0.1:6379', true],
    ['REDLOCK_KEY_PREFIX', 'x', true],
    ['PATH', '/usr/bin', true],
  ])('%s=%s is kept: %s', (name, value, kept) => {
    expect(name in withoutPasswords({ [name]: value })).toBe(kept);
  });

  it('hold -- cmd connects with REDISCLI_AUTH, but the command sees no password variable', async () => {
    const env = tempStateEnv({ REDISCLI_AUTH: PASSWORD, REDIS_PASSWORD: PASSWORD, REDLOCK_PASSWORD_PROD: PASSWORD });
    const script = 'console.log(JSON.stringify(Object.keys(process.env).filter((n) => /PASS|AUTH|REDLOCK_KEY/.test(n))))';
    const r = await runCli(['hold', 'env-key', '-u', `redis://127.0.0.1:${server.port}`, '--', process.execPath, '-e', script], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(['REDLOCK_KEY']);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });
});
