// The live views as an on-call user who may only read (issue 25: "--watch and the REPL panel work
// for a user with only +@read +@connection +info"): the REPL's panel and `ls --watch` draw the
// lock from plain reads, no refusal is printed, and the server's ACL LOG holds no denied write.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { urlTarget } from '../../src/repl/target.js';
import { owner, rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { Keyboard, Sink } from '../helpers/terminal.js';
import { mountRepl, unmountAll } from './repl-harness.js';

let server: RedisServer;
let redis: ReturnType<typeof rawClient>;

beforeAll(async () => {
  server = await startRedis();
  redis = rawClient(server);
  await redis.call('ACL', 'SETUSER', 'oncall', 'on', '>pw', '~*', '&*', '-@all', '+@read', '+@connection', '+info');
  await redis.hset('orders', owner(7), '1');
  await redis.pexpire('orders', 600_000);
});
beforeEach(async () => {
  await redis.call('ACL', 'LOG', 'RESET');
});
afterEach(unmountAll);
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

/** What the ACL LOG says was denied, and which of those Redis flags as writes. */
async function aclLog(): Promise<{ denied: string[]; writes: unknown[] }> {
  const entries = (await redis.call('ACL', 'LOG', '128')) as unknown[][];
  const denied = [...new Set(entries.map((entry) => String(entry[entry.indexOf('object') + 1])))];
  if (denied.length === 0) return { denied, writes: [] };
  const info = (await redis.call('COMMAND', 'INFO', ...denied)) as unknown[][];
  return { denied, writes: info.filter((cmd) => Array.isArray(cmd?.[2]) && (cmd[2] as string[]).includes('write')).map((cmd) => cmd[0]) };
}

/** No write was tried; the snapshot script was (and refused, so the view read with plain reads): the log is read right. */
async function expectNoDeniedWrite(): Promise<void> {
  const { denied, writes } = await aclLog();
  expect(denied).toContain('eval');
  expect(writes).toEqual([]);
}

const oncallUrl = () => `redis://oncall:pw@127.0.0.1:${server.port}`;

describe('live views as a read-only user', () => {
  it('watch draws the held lock in the panel, prints no refusal, and tries no write', async () => {
    const r = await mountRepl(urlTarget(oncallUrl()));
    await r.promptIs('');
    r.enter('watch orders');
    await r.until(() => /orders +reentrant +held/.test(r.panel()) && r.panel().includes(`holder   ${owner(7)}`), 'the panel drawing the lock');
    expect(r.frame()).not.toMatch(/NOPERM|permission/i);
    await r.session.close();
    await expectNoDeniedWrite();
  });

  it('ls --watch draws the held lock, prints no refusal, and tries no write', async () => {
    const [stdout, stderr, keyboard] = [new Sink(true), new Sink(), new Keyboard()];
    const io = { stdout, stderr, stdin: keyboard as unknown as NodeJS.ReadableStream, env: tempStateEnv({ REDIS_URL: oncallUrl() }), signal: AbortSignal.timeout(20_000) };
    const exited = run(['ls', '--watch', '--interval', '200ms'], io);
    const deadline = Date.now() + 15_000;
    while (!/orders +reentrant/.test(stdout.text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    keyboard.press('q');
    expect(await exited).toBe(0);
    expect(stdout.text).toMatch(/orders +reentrant/);
    expect(stdout.text + stderr.text).not.toMatch(/NOPERM|permission/i);
    await expectNoDeniedWrite();
  });
});
