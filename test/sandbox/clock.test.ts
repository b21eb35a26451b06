import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import {
  detectClockSupport,
  fakeClockEnv,
  fakeClockFile,
  parseClockChange,
  shiftClock,
  withFakeClocks,
  type ClockNode,
} from '../../src/sandbox/clock.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const support = detectClockSupport();
const dir = mkdtempSync(join(tmpdir(), 'redlock-clock-'));
const started: { server: RedisServer; client: Redis }[] = [];

interface Node extends ClockNode {
  readonly server: RedisServer;
  readonly client: Redis;
}

function connect(server: RedisServer): Redis {
  const client = new Redis({ port: server.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  return client;
}

/** A redis-server under libfaketime: startRedis spawns with our environment, so lend it the variables. */
async function startFakeClockNode(name: string): Promise<Node> {
  if (support.method !== 'faketime') throw new Error(`libfaketime unusable here: ${support.reason}`);
  const env = await fakeClockEnv({ timestampFile: join(dir, `${name}.faketime`), shimDir: dir, support });
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let server: RedisServer;
  try {
    server = await startRedis();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  const client = connect(server);
  started.push({ server, client });
  return { name, server, client, fakeClock: fakeClockFile(env) };
}

async function startPlainNode(name: string): Promise<Node> {
  const server = await startRedis();
  const client = connect(server);
  started.push({ server, client });
  return { name, server, client };
}

async function stopNode(node: Node): Promise<void> {
  node.client.disconnect();
  await node.server.stop();
}

const shmFiles = (pid: number): string[] => readdirSync('/dev/shm').filter((f) => f.includes('faketime') && f.endsWith(`_${pid}`));

/** How long a fresh `PX ttlMs` key lives on the node, polled every 5 ms. */
async function lifetime(client: Redis, ttlMs: number, boundMs: number): Promise<number> {
  // Timed from before the SET: the TTL starts when the server runs it, so a late reply cannot
  // make the key look short-lived (it can only add to the upper side).
  const t0 = performance.now();
  await client.set('probe', '1', 'PX', ttlMs);
  while (performance.now() - t0 < boundMs) {
    if ((await client.exists('probe')) === 0) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 5));
  }
  return Infinity;
}

let jumped: Node;
let plain: Node;

beforeAll(async () => {
  jumped = await startFakeClockNode('r1');
  plain = await startPlainNode('r2');
});
afterAll(async () => {
  for (const { server, client } of started) {
    client.disconnect();
    await server.stop();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('clock faults', () => {
  it('finds libfaketime and a C compiler on this machine, and says why when either is missing', () => {
    expect(support).toMatchObject({ method: 'faketime', library: expect.stringContaining('libfaketime') });
    expect(detectClockSupport({ library: '/nowhere/libfaketime.so.1' })).toEqual({
      method: 'ttl-rewrite',
      reason: 'libfaketime not found at /nowhere/libfaketime.so.1',
    });
    expect(detectClockSupport({ compiler: 'no-such-cc' })).toMatchObject({ method: 'ttl-rewrite', reason: expect.stringMatching(/C compiler/) });
  });

  it('puts every redis node of a topology under libfaketime, and leaves the options alone where it is unusable', async () => {
    const home = { XDG_STATE_HOME: join(dir, 'state'), PATH: process.env.PATH };
    const { options, support: found } = await withFakeClocks({ topology: 'sentinel', nodeEnv: { n2: { EXTRA: '1' } } }, home);
    expect(found.method).toBe('faketime');
    expect(Object.keys(options.nodeEnv ?? {})).toEqual(['n2', 'n1', 'n3']);
    expect(fakeClockFile(options.nodeEnv?.n1)).toBe('faketime');
    expect(options.nodeEnv?.n2).toMatchObject({ EXTRA: '1', FAKETIME_NO_CACHE: '1' });
    expect(options.nodeEnv?.n1?.LD_PRELOAD).toMatch(new RegExp(`^${join(dir, 'state', 'redlock-cli', 'faketime')}/.*\\.so:.*libfaketime`));
    const without = await withFakeClocks({ topology: 'single' }, { ...home, PATH: '' });
    expect(without).toMatchObject({ options: { topology: 'single' }, support: { method: 'ttl-rewrite' } });
    expect(without.options.nodeEnv).toBeUndefined();
  });

  it('parses jumps and rates, and refuses anything else as a usage error', () => {
    expect(parseClockChange('+10s')).toEqual({ kind: 'jump', ms: 10_000 });
    expect(parseClockChange('-500ms')).toEqual({ kind: 'jump', ms: -500 });
    expect(parseClockChange('x2')).toEqual({ kind: 'rate', factor: 2 });
    expect(parseClockChange('x0.5')).toEqual({ kind: 'rate', factor: 0.5 });
    for (const bad of ['10s', 'x0', 'fast', '+0s', 'x']) expect(() => parseClockChange(bad)).toThrow(UsageError);
  });

  it('a +10s jump expires a PX 10000 key at once on that node only', async () => {
    await jumped.client.set('lock', 'a', 'PX', 10_000);
    await plain.client.set('lock', 'a', 'PX', 10_000);
    const report = await shiftClock(jumped, parseClockChange('+10s'));
    expect(report).toMatchObject({ method: 'faketime', rate: 1, message: expect.stringContaining('libfaketime') });
    expect(Math.abs(report.skewMs - 10_000)).toBeLessThan(250); // the measurement's round trips on a busy machine
    expect(await jumped.client.exists('lock')).toBe(0);
    expect(await plain.client.pttl('lock')).toBeGreaterThan(9_000);
    // A later write expires normally again: the jump was a step, not a drift.
    expect(await lifetime(jumped.client, 300, 2_000)).toBeGreaterThan(280);
  });

  it('x10 makes a PX 2000 key live ~200 ms, and the rate change bends the clock without a leap', async () => {
    const before = (await shiftClock(jumped, parseClockChange('x1'))).skewMs;
    const fast = await shiftClock(jumped, parseClockChange('x10'));
    // Without the bend the clock would leap by 9 x the node's age (seconds); what remains is the
    // skew gained at x10 during the millisecond or two it takes to measure it.
    // (x10 turns each millisecond of a busy machine's round trip into ten: the bound allows 100 ms of it.)
    expect(Math.abs(fast.skewMs - before)).toBeLessThan(1000);
    const lived = await lifetime(jumped.client, 2_000, 2_000);
    expect(lived).toBeGreaterThan(170);
    // Never before 200 ms; the upper bound leaves room for a loaded box (the whole suite runs 4
    // files on 2 cores) and is still far from the 2 s the key lives at real speed.
    expect(lived).toBeLessThan(1200);
    const normal = await shiftClock(jumped, parseClockChange('x1'));
    expect(normal.rate).toBe(1);
    expect(await lifetime(jumped.client, 300, 2_000)).toBeGreaterThan(280);
  });

  it('a restarted node keeps its skew', async () => {
    const node = await startFakeClockNode('r3');
    const skew = (await shiftClock(node, parseClockChange('+1h'))).skewMs;
    await stopNode(node);
    const again = await startFakeClockNode('r3');
    expect(again.fakeClock).toBe(node.fakeClock);
    const now = Number(((await again.client.call('TIME')) as string[])[0]) * 1000;
    expect(Math.abs(now - Date.now() - skew)).toBeLessThan(1_000);
  });

  it('leaves no libfaketime shared memory behind a SIGKILLed node (the shim keeps it from creating any)', async () => {
    const node = await startFakeClockNode('r4');
    await shiftClock(node, parseClockChange('x2'));
    expect(shmFiles(node.server.pid)).toEqual([]);
    await stopNode(node);
    expect(shmFiles(node.server.pid)).toEqual([]);
  });

  it('without libfaketime, emulates a forward jump by lowering every TTL in one Lua pass', async () => {
    const node: ClockNode = { ...plain, fallbackReason: 'libfaketime not found' };
    await plain.client.flushall();
    await plain.client.set('lock', 'a', 'PX', 10_000);
    await plain.client.set('long', 'b', 'PX', 30_000);
    await plain.client.set('forever', 'c');
    await plain.client.select(3);
    await plain.client.set('other-db', 'd', 'PX', 5_000);
    await plain.client.select(0);
    const report = await shiftClock(node, parseClockChange('+10s'));
    expect(report).toMatchObject({ method: 'ttl-rewrite', ttls: { keys: 3, expired: 2 } });
    expect(report.message).toContain('libfaketime not found');
    expect(await plain.client.exists('lock')).toBe(0);
    expect(await plain.client.pttl('long')).toBeLessThanOrEqual(20_000);
    expect(await plain.client.pttl('long')).toBeGreaterThan(19_000);
    expect(await plain.client.get('forever')).toBe('c');
    await expect(shiftClock(node, parseClockChange('x2'))).rejects.toThrow(UsageError);
  });
});
