import { describe, expect, it } from 'vitest';
import { useRedisServer } from '../helpers/fixture.js';
import { freePort } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `trace` through run(argv, ctx) as a user runs it piped: event lines or NDJSON while it runs,
// the summary at the end, exit 0 when nothing unsafe was seen and 7 when something was.

const fx = useRedisServer();
const env = () => tempStateEnv({ REDIS_URL: fx.server.url });

/** Runs `trace` for `forMs` while `traffic` runs once its MONITOR is up (it says so on stderr). */
async function traceDuring(args: string[], traffic: () => Promise<void>) {
  const run = runCli(['trace', ...args], env());
  // Traffic starts once the server lists trace's MONITOR connection (it has another, for CLIENT LIST):
  // flag O. Not `cmd=monitor`: the feed's first fence (an ECHO) follows at once and becomes its cmd.
  const monitoring = (list: string) => list.split('\n').some((c) => c.includes('name=redlock-cli:trace') && /\bflags=\S*O/.test(c));
  const until = Date.now() + 15_000;
  while (!monitoring(String(await fx.raw.client('LIST')))) {
    if (Date.now() > until) throw new Error('trace did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  await traffic();
  return run;
}

describe('redlock-cli trace (piped)', () => {
  it('--json: one event per line, then the summary; safe traffic exits 0', async () => {
    const r = await traceDuring(['--for', '3s', '--json'], async () => {
      await fx.raw.set('jobs:1', 'tok', 'PX', 5000, 'NX');
      await fx.raw.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end', 1, 'jobs:1', 'tok');
      await fx.raw.set('other', 'tok', 'PX', 5000, 'NX');
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.type === 'event').map((l) => `${l.kind} ${l.lock}`)).toEqual(['attempt jobs:1', 'acquired jobs:1', 'released jobs:1', 'attempt other', 'acquired other']);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', unsafe: false, findings: [], events: 5 });
    expect(r.stderr).toMatch(/^trace: following the server \(127\.0\.0\.1:\d+\)/);
    // Once, on stderr: what MONITOR costs the server and how long this one runs.
    const cost = r.stderr.split('\n').filter((l) => l.startsWith('trace: MONITOR copies every command'));
    expect(cost).toEqual([expect.stringMatching(/costs the server throughput \(61 to 72 % fewer .*\): it stops after 3\.0 s \(--for\)/)]);
  });

  it('a pattern keeps other locks out; unsafe traffic prints the finding and exits 7', async () => {
    const r = await traceDuring(['jobs:*', '--for', '3s'], async () => {
      await fx.raw.set('jobs:2', 'tok', 'PX', 5000, 'NX');
      await fx.raw.del('jobs:2');
      await fx.raw.set('other', 'tok2', 'PX', 5000, 'NX');
      await fx.raw.del('other');
    });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}jobs:2 {2}attempt {2}by tok \[127\.0\.0\.1:\d+\]\n\d\d:\d\d:\d\d\.\d{3} {2}jobs:2 {2}acquired {2}by tok /m);
    expect(r.stdout).toMatch(/^! foreign-delete jobs:2 /m);
    expect(r.stdout).not.toMatch(/ other /);
    expect(r.stdout).toMatch(/findings: 1 unsafe, 0 warnings/);
  });

  it('bad input is a usage error before anything connects; an unreachable server exits 3', async () => {
    expect((await runCli(['trace', '--for', '5x'], env())).code).toBe(2);
    const both = await runCli(['trace', '--from', 'x.log', '--for', '1s'], env());
    expect([both.code, both.stderr.trim()]).toEqual([2, 'redlock-cli: --from reads a saved trace: it takes no --record or --for']);
    const sourced = await runCli(['trace', '--from', 'x.log', '--source', 'keyspace'], env());
    expect([sourced.code, sourced.stderr.trim()]).toEqual([2, 'redlock-cli: --from reads a saved trace: it takes no --source']);
    const alone = await runCli(['trace', '--enable-notifications', '--for', '1s'], env());
    expect([alone.code, alone.stderr.trim()]).toEqual([2, 'redlock-cli: --enable-notifications goes with --source keyspace']);
    expect((await runCli(['trace', '--source', 'bus'], env())).code).toBe(2);
    const port = await freePort();
    const down = await runCli(['trace', '--for', '1s', '-u', `redis://127.0.0.1:${port}`], env());
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}`));
  });
});
