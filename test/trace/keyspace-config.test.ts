import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';
import { killStartedClis, spawnCli } from '../helpers/cli-process.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually } from '../helpers/sandbox.js';

// `trace --source keyspace` and the server's notify-keyspace-events: what a trace that changed it
// leaves a person to do when it is killed before it can put it back.

const run = promisify(execFile);
let server: RedisServer;
let raw: Redis;

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
  raw = rawClient(server);
  await raw.call('ACL', 'SETUSER', 'tracer', 'on', '>pw-s3cret', '+@all', '~*', '&*');
}, 180_000);
afterEach(() => killStartedClis());
afterAll(async () => {
  raw?.disconnect();
  await server?.stop();
});

const notifyFlags = async () => String(((await raw.config('GET', 'notify-keyspace-events')) as string[])[1]);

describe('trace --enable-notifications, then SIGKILL', () => {
  it('printed the exact command that puts the old value back (no password in it), and that command works', async () => {
    await raw.config('SET', 'notify-keyspace-events', 'E$');
    const before = await notifyFlags();
    const url = `redis://tracer:pw-s3cret@127.0.0.1:${server.port}`;
    const cli = spawnCli(
      ['trace', '--source', 'keyspace', '--enable-notifications', '--json', '--url', url],
      tempStateEnv(),
    );
    await cli.waitFor(/if the trace is killed, by: .*\n/, 20_000);
    process.kill(cli.pid, 'SIGKILL');
    expect(await cli.exited).toBe(137);
    // Killed: the trace never put it back.
    expect(await notifyFlags()).not.toBe(before);
    const command = /if the trace is killed, by: (.*)\n/.exec(cli.err())![1]!;
    expect(command).toBe(
      `redis-cli -h 127.0.0.1 -p ${server.port} --user tracer --askpass CONFIG SET notify-keyspace-events '${before}'`,
    );
    expect(cli.err() + cli.out()).not.toContain('pw-s3cret');
    // Pasted into a shell, with the password typed where --askpass asks for it.
    await run('sh', ['-c', `echo pw-s3cret | ${command}`]);
    expect(await notifyFlags()).toBe(before);
  }, 60_000);
});

describe('notifications turned off under a keyspace trace', () => {
  it('says it went blind (from when), says when it sees again, and the summary does not call the blind time safe', async () => {
    await raw.config('SET', 'notify-keyspace-events', 'Kg$hx');
    const env = tempStateEnv({ REDIS_URL: server.url });
    for (const json of [true, false]) {
      let stderr = '';
      const done = runCli(
        ['trace', '--source', 'keyspace', '--for', '8s', ...(json ? ['--json'] : [])],
        env,
        undefined,
        (t) => (stderr += t),
      );
      // Subscribed (said once every feed runs): PUBSUB NUMPAT may still count the previous run's.
      await eventually(async () => stderr.includes('trace: following'), 10_000);
      await raw.set(`seen-${json}`, 'tokA', 'PX', 60_000, 'NX');
      await raw.config('SET', 'notify-keyspace-events', '');
      // Unseen: taken while the trace is blind.
      await raw.set(`unseen-${json}`, 'tokB', 'PX', 60_000, 'NX');
      await eventually(async () => stderr.includes('BLIND: '), 10_000);
      await raw.config('SET', 'notify-keyspace-events', 'Kg$hx');
      await eventually(async () => stderr.includes('the trace sees again'), 10_000);
      const r = await done;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /BLIND: notify-keyspace-events was changed to "", without K g \$ h x: no notification arrives, nothing is seen \(since between \d\d:\d\d:\d\d\.\d{3} and \d\d:\d\d:\d\d\.\d{3}\)/,
      );
      expect(r.stdout).not.toContain('unseen');
      if (json) {
        const lines = r.stdout
          .trim()
          .split('\n')
          .map(
            (l) =>
              JSON.parse(l) as {
                type: string;
                kind?: string;
                t?: number;
                lock?: string;
                blind?: { from: number; to: number }[];
              },
          );
        const kinds = lines.filter((l) => l.type === 'event').map((l) => `${l.kind} ${l.lock}`);
        expect(kinds).toEqual(['acquired seen-true', 'blind *', 'unblind *']);
        const [blind, unblind] = lines.filter((l) => l.kind === 'blind' || l.kind === 'unblind');
        const summary = lines.at(-1)!;
        expect(summary.type).toBe('summary');
        expect(summary.blind).toEqual([expect.objectContaining({ from: blind!.t, to: unblind!.t })]);
        expect(blind!.t!).toBeLessThan(unblind!.t!);
      } else {
        expect(r.stdout).toMatch(/BLIND .*notify-keyspace-events was changed/);
        expect(r.stdout).not.toContain('nothing unsafe seen\n');
        expect(r.stdout).toContain(
          'findings: none seen, but the trace was blind once: nothing unsafe seen outside that period',
        );
        expect(r.stdout).toMatch(
          /^ {2}! blind \d\d:\d\d:\d\d\.\d{3}-\d\d:\d\d:\d\d\.\d{3}: notify-keyspace-events was changed to ""/m,
        );
      }
    }
  }, 90_000);
});
