import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import Redlock, { Lock } from 'redlock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { WhoReport } from '../../src/core/who/model.js';
import { spawnCli } from '../helpers/cli-process.js';
import { useRedisServer } from '../helpers/fixture.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// `who` against real clients on a real server: our CLI's hold (processes), node-redlock (clients
// in this process, and one in a process of its own that is killed by pid). Every party is checked
// against the connection it really has: the address its client reports, or CLIENT LIST by name.

const fx = useRedisServer({ builtCli: true, flushEachTest: true });
const env = tempStateEnv();
const clients: Redis[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
});
afterAll(() => undefined);

/** An ioredis client named `name`, and its address as the server sees it. */
async function named(name: string): Promise<{ client: Redis; addr: string }> {
  const client = new Redis({ port: fx.server.port, host: '127.0.0.1', connectionName: name, maxRetriesPerRequest: 1 });
  clients.push(client);
  await client.ping();
  return { client, addr: `${client.stream.localAddress}:${client.stream.localPort}` };
}

/** Addresses of the connections CLIENT LIST names `name`. */
async function addrsNamed(name: string): Promise<string[]> {
  const list = String(await fx.raw.call('CLIENT', 'LIST'));
  return list.split('\n').filter((l) => l.includes(` name=${name} `)).map((l) => /addr=(\S+)/.exec(l)![1]!);
}

async function who(...args: string[]): Promise<{ report: WhoReport; stderr: string }> {
  const r = await runCli(['who', ...args, '--json', '--url', fx.server.url], env);
  expect(r.code, r.stderr).toBe(0);
  return { report: JSON.parse(r.stdout) as WhoReport, stderr: r.stderr };
}

async function until(what: string, check: () => Promise<boolean>, boundMs = 20_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('who resolves holders and waiters to their connections', () => {
  it('our hold (holder and waiter processes) and node-redlock (auto-extending holder, polling waiter), in one sample', async () => {
    const holdArgs = ['--url', fx.server.url, '--watchdog', '3s'];
    const holder = spawnCli(['hold', 'h:cli', ...holdArgs, '--', 'sleep', '30'], env);
    await holder.waitFor(/started pid/);
    const [holderAddr] = await addrsNamed('redlock-cli');
    const waiter = spawnCli(['hold', 'h:cli', ...holdArgs, '--wait', '30s', '--', 'true'], env);
    await until('the hold waiter to subscribe', async () => (await fx.raw.pubsub('NUMSUB', 'redisson_lock__channel:{h:cli}'))[1] === 1);
    const waiterAddr = (await addrsNamed('redlock-cli')).find((a) => a !== holderAddr);

    const a = await named('nr-holder');
    const b = await named('nr-waiter');
    const theirs = new Redlock([a.client], { retryCount: 0, automaticExtensionThreshold: 1000 });
    const polling = new Redlock([b.client], { retryCount: 300, retryDelay: 100, retryJitter: 0 });
    let release: () => void = () => undefined;
    const held = theirs.using(['h:nr'], 2000, () => new Promise<void>((r) => (release = r)));
    await until('node-redlock to hold', async () => (await fx.raw.exists('h:nr')) === 1);
    const waiting = polling.acquire(['h:nr'], 2000).catch(() => undefined);

    const { report } = await who('h:*', '--full', '--sample', '3s');
    const cli = report.locks.find((l) => l.key === 'h:cli')!;
    expect(cli.holders.map((h) => [h.connection?.addr, h.via, h.liveness.state])).toEqual([[holderAddr, 'monitor', 'alive']]);
    expect(cli.waiters.map((w) => [w.connection?.addr, w.via])).toEqual([[waiterAddr, 'monitor']]);
    expect(cli.subscribers.count).toBe(1);
    const nr = report.locks.find((l) => l.key === 'h:nr')!;
    expect(nr.library).toBe('node-redlock');
    expect(nr.holders.map((h) => [h.connection?.addr, h.connection?.name, h.via, h.liveness.state])).toEqual([[a.addr, 'nr-holder', 'monitor', 'alive']]);
    expect(nr.waiters.map((w) => [w.connection?.addr, w.connection?.name, w.via])).toEqual([[b.addr, 'nr-waiter', 'monitor']]);
    expect(report.chains).toEqual([]);

    release();
    await held;
    await waiting;
    holder.child.kill('SIGTERM');
    await holder.exited;
    await waiter.exited;
  }, 60_000);

  it('a holder killed by pid while another connection renews: a zombie renewer, then "gone; frees in"', async () => {
    // A trace sees the holder acquire, and leaves its connection in the owner directory.
    let following: () => void = () => undefined;
    const started = new Promise<void>((r) => (following = r));
    const trace = runCli(['trace', 'z:lock', '--for', '3s', '--url', fx.server.url], env, undefined, (text) => /following/.test(text) && following());
    await started;
    const child = spawn(process.execPath, ['test/trace/who-holder.mjs', String(fx.server.port), 'z:lock', 'zombie-holder', '5000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    const { value, addr: holderAddr } = JSON.parse(line) as { value: string; addr: string };
    // From now on another connection keeps its lease alive with node-redlock's extend, as a leaked watchdog would.
    const renewer = await named('renewer');
    const extender = new Redlock([renewer.client], { retryCount: 0 });
    let stop = false;
    const renewing = (async () => {
      for (let i = 0; i < 200 && !stop; i++) {
        await new Lock(extender, ['z:lock'], value, [], Date.now() + 5000).extend(5000).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    // The trace saw the acquisition (and the renewals, which never replace the acquirer in the directory).
    expect((await trace).code).toBe(0);
    const killed = new Promise((r) => child.once('exit', r));
    process.kill(child.pid!, 'SIGKILL');
    await killed;
    await until('the holder connection to close', async () => (await addrsNamed('zombie-holder')).length === 0);

    const zombie = (await who('z:lock', '--sample', '2s')).report.locks[0]!;
    expect(zombie.holders).toHaveLength(1);
    const [h] = zombie.holders;
    expect([h!.owner, h!.via, h!.connection?.addr, h!.connection?.name, h!.connection?.gone]).toEqual([value, 'trace-memory', holderAddr, 'zombie-holder', true]);
    expect(h!.liveness.state).toBe('zombie-renewer');
    expect(h!.liveness.state === 'zombie-renewer' && [h!.liveness.renewer.addr, h!.liveness.renewer.name]).toEqual([renewer.addr, 'renewer']);

    stop = true;
    await renewing;
    const text = await runCli(['who', 'z:lock', '--sample', '1s', '--url', fx.server.url], env);
    const ttl = await fx.raw.pttl('z:lock');
    expect(ttl).toBeGreaterThan(0);
    expect(text.stdout).toContain(`holder zombie-holder (${holderAddr})  connection gone  owner ${value.slice(0, 8)}…, remembered from an earlier trace`);
    expect(text.stdout).toMatch(/\n {4}holder's connection is gone; frees in \d+(\.\d)? (s|ms)\n/);
  }, 60_000);

  it('draws a 3-deep blocked-by chain across locks exactly', async () => {
    const a = await named('chain-a');
    const b = await named('chain-b');
    const c = await named('chain-c');
    const d = await named('chain-d');
    const redlock = (x: { client: Redis }) => new Redlock([x.client], { retryCount: 150, retryDelay: 100, retryJitter: 0, automaticExtensionThreshold: 1000 });
    const releases: (() => void)[] = [];
    const holding = (x: { client: Redis }, key: string, then: () => Promise<unknown> = () => new Promise<void>((r) => releases.push(r))) =>
      redlock(x).using([key], 2000, then).catch(() => undefined);
    const exists = (key: string) => async () => (await fx.raw.exists(key)) === 1;
    const dDone = holding(d, 'chain:3');
    await until('d to hold chain:3', exists('chain:3'));
    const cDone = holding(c, 'chain:2', () => redlock(c).acquire(['chain:3'], 2000));
    await until('c to hold chain:2', exists('chain:2'));
    const bDone = holding(b, 'chain:1', () => redlock(b).acquire(['chain:2'], 2000));
    await until('b to hold chain:1', exists('chain:1'));
    const aDone = redlock(a).acquire(['chain:1'], 2000).catch(() => undefined);

    const r = await runCli(['who', 'chain:*', '--full', '--sample', '3s', '--url', fx.server.url], env);
    expect(r.code, r.stderr).toBe(0);
    const label = (x: { addr: string }, name: string) => `${name} (${x.addr})`;
    expect(r.stdout).toContain(
      [
        'blocked-by chain:',
        `  ${label(a, 'chain-a')} waits for chain:1`,
        `  └─ held by ${label(b, 'chain-b')}, who waits for chain:2`,
        `    └─ held by ${label(c, 'chain-c')}, who waits for chain:3`,
        `      └─ held by ${label(d, 'chain-d')}`,
        '',
      ].join('\n'),
    );
    expect(r.stdout.match(/blocked-by chain:/g)).toHaveLength(1);
    // The waiters' retries end with an error once their connections close (afterEach); nothing to await.
    for (const release of releases) release();
    void Promise.all([aDone, bDone, cDone, dDone]);
  }, 60_000);

  it('degrades without +monitor and +client|list, naming the rules; works with +@read +@connection +info +monitor +client|list', async () => {
    await fx.raw.call('ACL', 'SETUSER', 'who-ro', 'on', '>pw', '~*', '&*', '+@read', '+@connection', '+info', '-monitor', '-client', '+client|setname');
    await fx.raw.call('ACL', 'SETUSER', 'who-full', 'on', '>pw', '~*', '&*', '+@read', '+@connection', '+info', '+monitor', '+client|list');
    const holder = spawnCli(['hold', 'acl:lock', '--url', fx.server.url, '--watchdog', '3s', '--', 'sleep', '30'], env);
    await holder.waitFor(/started pid/);
    const [holderAddr] = await addrsNamed('redlock-cli');
    const url = (user: string) => fx.server.url.replace('redis://', `redis://${user}:pw@`);

    const ro = await runCli(['who', 'acl:lock', '--sample', '2s', '--url', url('who-ro')], env);
    expect(ro.code, ro.stderr).toBe(0);
    expect(ro.stdout).toMatch(/^ {2}holder not resolved {2}owner [0-9a-f]{8}…:1: not seen in the sample, not in the owner directory$/m);
    expect(ro.stderr).toContain('grant it with ACL SETUSER who-ro +monitor');
    expect(ro.stderr).toContain('grant it with ACL SETUSER who-ro +client|list');
    expect(ro.stderr).not.toContain('pw');

    const full = await runCli(['who', 'acl:lock', '--json', '--sample', '2s', '--url', url('who-full')], env);
    expect(full.code, full.stderr).toBe(0);
    const report = JSON.parse(full.stdout) as WhoReport;
    expect(report.limits).toEqual([]);
    expect(report.locks[0]!.holders.map((h) => [h.connection?.addr, h.via, h.liveness.state])).toEqual([[holderAddr, 'monitor', 'alive']]);
    // Read-only: the lock is exactly as the holder keeps it.
    expect(await fx.raw.hgetall('acl:lock')).toEqual({ [report.locks[0]!.holders[0]!.owner]: '1' });
    holder.child.kill('SIGTERM');
    await holder.exited;
  }, 60_000);
});
