import { PassThrough } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fencedTokenKey } from '../../src/core/names.js';
import { run } from '../../src/main.js';
import { rawClient } from '../helpers/lock-env.js';
import { dumpAll, dumpAndExpiryAll } from '../helpers/read-only.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { NO_WRONG_VERDICT, runCli, tempStateEnv } from '../helpers/run-cli.js';
import { startCluster, startSentinel, type SentinelTopology, type Topology } from '../helpers/topologies.js';

// Issue 29: race on the user's own server, Sentinel or Cluster, through the same connection
// options as every command. Off a sandbox it asks first (--yes without a terminal), never
// touches a key that exists, and sends no fault to a server. The servers here are plain
// redis-servers this file starts, not sandboxes.

const env = tempStateEnv();
const servers: RedisServer[] = [];
let sentinel: SentinelTopology;
let cluster: Topology;
const raws: Redis[] = [];

beforeAll(async () => {
  [sentinel, cluster] = await Promise.all([startSentinel(), startCluster()]);
  for (let i = 0; i < 3; i++) servers.push(await startRedis());
  for (const s of servers) raws.push(rawClient(s));
}, 60_000);
afterAll(async () => {
  for (const r of raws) r.disconnect();
  await Promise.all([...servers.map((s) => s.stop()), sentinel?.stop(), cluster?.stop()]);
});

const raw = (): Redis => raws[0]!;
const port = (): string => String(servers[0]!.port);
const short = ['--clients', '3', '--duration', '1s', '--lease', '2s', '--hold', '2ms'];
const race = (...args: string[]) => runCli(['race', ...args], env);

interface RaceJson {
  readonly plan: { readonly target: unknown };
  readonly target: string;
  readonly acquisitions: number;
  readonly violations: readonly unknown[];
  readonly keys: readonly { readonly history: unknown }[];
}

/** A race that ran: no wrong verdict, no violation, some acquisitions. */
function ran(r: { code: number; stdout: string; stderr: string }): RaceJson {
  expect(NO_WRONG_VERDICT, r.stderr).toContain(r.code);
  const json = JSON.parse(r.stdout) as RaceJson;
  expect(json.violations).toEqual([]);
  return json;
}

/** One refusal: exit 2, one stderr line, nothing on stdout. */
function refused(r: { code: number; stdout: string; stderr: string }, says: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(says);
}

describe('race on a server of your own', () => {
  it('-p with --yes races there, and the application key beside it is untouched', async () => {
    await raw().hset('app:user:1', 'name', 'ada');
    const before = await dumpAndExpiryAll(raw());
    const json = ran(await race('rt:orders', '-p', port(), '--kind', 'fenced', ...short, '--yes', '--json'));
    expect(json.target).toBe(`127.0.0.1:${port()}`);
    const after = await dumpAndExpiryAll(raw());
    // What the race leaves is its fenced counter, as Redisson does; the lock itself is released.
    expect([...after.keys()].filter((k) => !before.has(k)).map((k) => Buffer.from(k, 'hex').toString())).toEqual([fencedTokenKey('rt:orders')]);
    for (const [key, value] of before) expect(after.get(key)).toBe(value);
  }, 30_000);

  it('without --yes and no terminal: one line, exit 2, nothing written', async () => {
    const before = await dumpAll(raw());
    refused(await race('rt:asked', '-p', port(), ...short), new RegExp(`race writes locks at 127\\.0\\.0\\.1:${port()}, which is not a redlock-cli sandbox: pass --yes`));
    expect(await dumpAll(raw())).toEqual(before);
  });

  it.each([
    ['n', [2], /race cancelled: nothing was started and nothing changed/],
    ['y', NO_WRONG_VERDICT, /verdict\s+(SAFE|INCONCLUSIVE)/],
  ])('on a terminal it asks first: answered %s', async (answer, codes, says) => {
    const before = await dumpAll(raw());
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let out = '';
    let err = '';
    const exit = run(['race', `rt:asked-${answer}`, '-p', port(), ...short], {
      stdout: { write: (t: string) => (out += t), isTTY: false },
      stderr: { write: (t: string) => ((err += t), /Race there\? \[y\/N\] $/.test(err) && stdin.write(`${answer}\n`)), isTTY: false },
      stdin,
      env,
    });
    expect(codes, err).toContain(await exit);
    expect(err).toMatch(new RegExp(`^race writes locks on rt:asked-${answer} at 127\\.0\\.0\\.1:${port()}, which is not a redlock-cli sandbox`));
    expect(out + err).toMatch(says);
    if (answer === 'n') expect(await dumpAll(raw())).toEqual(before);
  }, 30_000);

  it('REDIS_URL names a server of your own too: it is asked about, not replaced by a sandbox', async () => {
    const r = await runCli(['race', 'rt:env', ...short], { ...env, REDIS_URL: servers[0]!.url });
    refused(r, new RegExp(`race writes locks at 127\\.0\\.0\\.1:${port()}, which is not a redlock-cli sandbox`));
  });

  it.each([
    ['a string of application data', 'rt:taken', async () => void (await raw().set('rt:taken', 'precious', 'EX', 600)), 'rt:taken', 'string', []],
    ['a lock someone holds', 'rt:held', async () => void (await raw().hset('rt:held', 'someone:1', '1')), 'rt:held', 'hash', []],
    ['a fenced lock\'s counter', 'rt:fenced', async () => void (await raw().set(fencedTokenKey('rt:fenced'), '41')), fencedTokenKey('rt:fenced'), 'string', ['--kind', 'fenced']],
  ])('a key that exists (%s) is refused with --yes, naming it; its value and TTL untouched', async (_what, key, arrange, named, type, extra) => {
    await arrange();
    const before = await dumpAndExpiryAll(raw());
    const r = await race(key, '-p', port(), ...extra, ...short, '--yes');
    const quoted = named.replace(/[{}]/g, '\\$&');
    refused(r, new RegExp(`^redlock-cli: "${quoted}" already exists on 127\\.0\\.0\\.1:${port()} \\(a ${type}\\): .*nothing was changed; race on other names, e\\.g\\. with a prefix: race:${key}$`, 'm'));
    expect(await dumpAndExpiryAll(raw())).toEqual(before);
  });

  it('a key on any one Redlock node is refused, naming that node', async () => {
    await raws[2]!.set('rt:pay', 'app');
    const nodes = servers.map((s) => s.url).join(',');
    refused(await race('rt:pay', '--kind', 'redlock', '--nodes', nodes, ...short, '--yes'), new RegExp(`"rt:pay" already exists on 127\\.0\\.0\\.1:${servers[2]!.port} \\(a string\\)`));
    expect(await raws[0]!.exists('rt:pay')).toBe(0);
  });

  it('--kind redlock --nodes races on the independent primaries', async () => {
    const nodes = servers.map((s) => s.url).join(',');
    const json = ran(await race('rt:pay2', '--kind', 'redlock', '--nodes', nodes, ...short, '--yes', '--json'));
    expect(json.target).toMatch(/^Redlock nodes /);
  }, 30_000);

  it.each(['failover', 'latency', 'clock', 'partition'])('--chaos %s (a server fault) is refused in one line, nothing written', async (verb) => {
    const before = await dumpAll(raw());
    refused(await race('rt:chaos', '-p', port(), '--chaos', verb, '--chaos-every', '400ms', ...short, '--yes'), new RegExp(`--chaos ${verb} faults a server, and a race never faults one that is not a redlock-cli sandbox`));
    expect(await dumpAll(raw())).toEqual(before);
  });

  it('--chaos pause acts on the race\'s own clients, so it runs', async () => {
    const json = ran(await race('rt:paused', '-p', port(), '--chaos', 'pause', '--chaos-every', '300ms', '--clients', '3', '--duration', '1500ms', '--lease', '2s', '--hold', '30ms', '--yes', '--json'));
    expect(JSON.stringify(json.keys[0]!.history)).toMatch(/"pause"/);
  }, 30_000);
});

describe('race on a Sentinel and a Cluster of your own', () => {
  it('--sentinel --master-name: the master the sentinels name', async () => {
    const json = ran(await race('rt:s', '--sentinel', `127.0.0.1:${sentinel.sentinelPort}`, '--master-name', sentinel.masterName, ...short, '--yes', '--json'));
    expect(json.target).toBe(`sentinel 127.0.0.1:${sentinel.sentinelPort} master mymaster`);
    expect(json.acquisitions).toBeGreaterThan(0);
  }, 30_000);

  it('--cluster: keys on different primaries, each raced on its own', async () => {
    const json = ran(await race('rt:c1', 'rt:c2', '--cluster', `127.0.0.1:${cluster.nodes[0]!.port}`, ...short, '--yes', '--json'));
    expect(json.target).toBe(`cluster 127.0.0.1:${cluster.nodes[0]!.port}`);
    expect(json.acquisitions).toBeGreaterThan(0);
    // The plan names the Cluster it raced on, not the default server --cluster left in the endpoint.
    expect(json.plan.target).toEqual({ type: 'url', url: `redis://127.0.0.1:${cluster.nodes[0]!.port}`, where: `cluster 127.0.0.1:${cluster.nodes[0]!.port}` });
  }, 30_000);

  it('--chaos failover against a Sentinel of your own is refused', async () => {
    refused(await race('rt:sf', '--sentinel', `127.0.0.1:${sentinel.sentinelPort}`, '--master-name', 'mymaster', '--chaos', 'failover', '--chaos-every', '400ms', ...short, '--yes'), /--chaos failover faults a server/);
  });
});
