// Issue 24, item 3: Redlock counts servers, not addresses. `[::1]:P/1` beside `127.0.0.1:P/0`
// reached one redis-server twice and let it cast two votes of three; so does a forwarded port.
// Both are now exit 2 naming the two entries, before anything is written on any node.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const env = tempStateEnv();
let dual: RedisServer; // listens on 127.0.0.1 and ::1
let other: RedisServer;
let forwarder: Server; // a plain TCP forwarder in front of `other`, as a port-forward or proxy is
let forwardedPort: number;
const sockets: Socket[] = [];
let raws: Redis[];

beforeAll(async () => {
  dual = await startRedis({ args: ['--bind', '127.0.0.1 ::1'] });
  other = await startRedis();
  forwarder = createServer((inbound) => {
    const outbound = createConnection({ host: '127.0.0.1', port: other.port });
    sockets.push(inbound, outbound);
    inbound.pipe(outbound).pipe(inbound);
    const end = (): void => void (inbound.destroy(), outbound.destroy());
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
  forwardedPort = (forwarder.address() as { port: number }).port;
  raws = [rawClient(dual), rawClient(other)];
}, 30_000);

afterAll(async () => {
  raws?.forEach((r) => r.disconnect());
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => forwarder?.close(resolve));
  await Promise.all([dual?.stop(), other?.stop()]);
});

/** Every key in every database of both servers, so "nothing written" covers /1 too. */
async function everyKey(): Promise<string[]> {
  const keys: string[] = [];
  for (const raw of raws) {
    keys.push(...((await raw.eval("local all = {} for db = 0, 15 do redis.call('select', db) for _, k in ipairs(redis.call('keys', '*')) do table.insert(all, db .. ':' .. k) end end return all", 0)) as string[]));
  }
  return keys;
}

const acquire = (nodes: readonly string[]) => runCli(['acquire', 'pay', '--kind', 'redlock', '--lease', '30s', '--nodes', nodes.join(',')], env);

describe('Redlock counts each redis-server once, however its address is spelled', () => {
  it('[::1]:P/1 beside 127.0.0.1:P/0: exit 2 naming both, nothing written', async () => {
    const r = await acquire([`redis://[::1]:${dual.port}/1`, `redis://127.0.0.1:${dual.port}/0`, other.url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^redlock-cli: --nodes names one server twice \\(\\[::1\\]:${dual.port}/1 and 127\\.0\\.0\\.1:${dual.port} are one redis-server, run_id [0-9a-f]{12}\\): Redlock needs independent primaries\\n$`),
    );
    expect(await everyKey()).toEqual([]);
  });

  it('a forwarded port in front of a server named beside it: exit 2, nothing written', async () => {
    const r = await acquire([`redis://127.0.0.1:${forwardedPort}`, dual.url, other.url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`(127.0.0.1:${forwardedPort} and 127.0.0.1:${other.port} are one redis-server`);
    expect(await everyKey()).toEqual([]);
  });

  it('distinct servers are not confused: [::1] of one beside two others acquires with three votes', async () => {
    const third = await startRedis();
    try {
      const r = await acquire([`redis://[::1]:${dual.port}/1`, other.url, third.url]);
      expect(r.code).toBe(0);
      expect(await raws[0]!.select(1).then(() => raws[0]!.exists('pay'))).toBe(1);
      await raws[0]!.select(0);
    } finally {
      await third.stop();
    }
  });
});
