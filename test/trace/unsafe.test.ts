import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenLockEnv } from '../../src/locks/env.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { rawClient, testEnv } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { eventually } from '../helpers/sandbox.js';
import { type CommandWatch, watchCommands } from '../helpers/monitor.js';
import { startTrace } from './trace-fixture.js';

// Unsafe traffic on a real server. The times a finding gives are checked against the server's
// own: a second MONITOR (ioredis) records when each command ran, independently of the trace.

let server: RedisServer;
let env: OpenLockEnv;
let raw: Redis;
const children: ChildProcess[] = [];
let groundTruth: CommandWatch;

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
  env = await testEnv(server);
  raw = rawClient(server);
  groundTruth = await watchCommands(server);
}, 60_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  groundTruth?.close();
  raw?.disconnect();
  await env?.close();
  await server?.stop();
});

/** The built CLI holding `key` with a 900 ms watchdog lease: it renews every 300 ms until stopped. */
async function holder(key: string): Promise<{ child: ChildProcess; owner: string; renewed: () => number }> {
  const child = spawn(process.execPath, [BIN, 'hold', key, '--watchdog', '900ms', '--json', '-u', server.url], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...tempStateEnv(), NO_COLOR: '1' },
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await eventually(async () => /"event":"acquired"/.test(out), 30_000);
  const owner = /"event":"acquired".*?"owner":"([^"]+)"/.exec(out)![1]!;
  return { child, owner, renewed: () => out.split('"event":"renewed"').length - 1 };
}

describe('trace catches unsafe traffic', () => {
  it('a holder paused past its lease while another takes the lock: expired-while-held and overlap, both named, at the server times', async () => {
    const trace = await startTrace(parseEndpointUrl(server.url));
    const a = await holder('job');
    // Paused just after a renewal came back, 300 ms before the next: none is in flight. (Paused
    // with one in flight, its reply and its lease's deadline are both due on waking, and the
    // watchdog may rightly give up without renewing again: nothing late for the trace to see.)
    const before = a.renewed();
    await eventually(async () => a.renewed() > before, 30_000);
    a.child.kill('SIGSTOP');
    // Its watchdog cannot renew: the lease runs out on the server.
    await eventually(async () => (await raw.exists('job')) === 0, 15_000);
    const b = { key: 'job', owner: 'bbbbbbbb-0000-4000-8000-000000000002:9', leaseMs: 10_000 };
    expect((await hashLock('reentrant').tryAcquire(env, b)).acquired).toBe(true);
    a.child.kill('SIGCONT');
    // Back from the pause, its next renewal is refused (B holds the lock now).
    await eventually(async () => trace.events.some((e) => e.kind === 'renew-refused' && e.owner === a.owner), 30_000);
    await trace.stop(raw);
    a.child.kill('SIGKILL');

    const expired = trace.findings.find((f) => f.kind === 'expired-while-held');
    const overlap = trace.findings.find((f) => f.kind === 'overlap');
    expect(expired?.owners).toEqual([a.owner]);
    expect(overlap?.owners).toEqual([a.owner, b.owner]);
    // The server's facts: A's last renewal before the pause (PEXPIRE 900 inside its script), B's acquire script, A's refused renewal.
    const { seen } = groundTruth;
    const aAddr = seen.find((s) => s.args.includes(a.owner) && s.source !== 'lua')!.source;
    const bLine = seen.find((s) => s.args[0]!.toLowerCase().startsWith('eval') && s.args.includes(b.owner))!;
    const lastRenewal = seen.filter((s) => s.source === 'lua' && s.args[0] === 'pexpire' && s.args[1] === 'job' && s.t < bLine.t).at(-1)!;
    const refusal = seen.find((s) => s.t > bLine.t && s.source === aAddr && s.args.includes(a.owner))!;
    expect(Math.abs(expired!.from - (lastRenewal.t + 900))).toBeLessThanOrEqual(10);
    expect(Math.abs(expired!.to - refusal.t)).toBeLessThanOrEqual(10);
    expect(Math.abs(overlap!.from - bLine.t)).toBeLessThanOrEqual(10);
    expect(Math.abs(overlap!.to - refusal.t)).toBeLessThanOrEqual(10);
    expect(overlap!.clients.map((c) => c.addr)).toEqual([aAddr, bLine.source]);
    expect(overlap!.clients[1]?.name).toBe('redlock-cli:test');
    expect(trace.findings.every((f) => f.lock === 'job')).toBe(true);
  }, 120_000);

  it('a plain DEL of a held lock: foreign-delete naming the holder and the client that deleted it', async () => {
    const trace = await startTrace(parseEndpointUrl(server.url));
    const owner = 'cccccccc-0000-4000-8000-000000000003:1';
    await hashLock('reentrant').tryAcquire(env, { key: 'orders', owner, leaseMs: 10_000 });
    const deleter = rawClient(server);
    await deleter.client('SETNAME', 'cleanup-script');
    await deleter.del('orders');
    deleter.disconnect();
    await trace.stop(raw);
    expect(trace.findings.map((f) => [f.kind, f.lock, f.owners, f.clients[0]?.name])).toEqual([['foreign-delete', 'orders', [owner], 'cleanup-script']]);
    expect(trace.findings[0]?.unsafe).toBe(true);
  }, 30_000);
});
