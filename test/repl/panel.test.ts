// The REPL's panel obeys the live-view rule: one round trip per tick for everything on it, on its
// own named connection, however many keys are watched and held.
import { createServer, Socket, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PANEL_CONNECTION_NAME } from '../../src/repl/panel.js';
import type { ReplSession } from '../../src/repl/session.js';
import { createSession } from '../../src/repl/start.js';
import { urlTarget } from '../../src/repl/target.js';
import { rawClient, owner } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';

interface Link {
  /** Everything the client sent, to tell connections apart by their CLIENT SETNAME. */
  sent: string;
  /** Client writes with no reply from the server in between count as one round trip. */
  trips: number;
}

/** A TCP proxy in front of Redis that counts round trips per client connection. */
function countingProxy(target: number): Promise<{ server: Server; port: number; links: Link[] }> {
  const links: Link[] = [];
  const server = createServer((client) => {
    const link: Link = { sent: '', trips: 0 };
    links.push(link);
    const upstream = new Socket();
    let awaiting = false;
    client.on('data', (d) => {
      if (!awaiting) link.trips += 1;
      awaiting = true;
      if (link.sent.length < 4096) link.sent += d.toString('latin1');
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      awaiting = false;
      client.write(d);
    });
    const end = (): void => void (client.destroy(), upstream.destroy());
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
    upstream.connect(target, '127.0.0.1');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, links })));
}

let server: RedisServer;
let proxy: Awaited<ReturnType<typeof countingProxy>>;
let session: ReplSession;

beforeAll(async () => {
  server = await startRedis();
  proxy = await countingProxy(server.port);
  session = await createSession(tempStateEnv(), { target: urlTarget(`redis://127.0.0.1:${proxy.port}`), intervalMs: 100 });
});
afterAll(async () => {
  await session?.close();
  proxy?.server.close();
  await server.stop();
});

/** Resolves after `n` more successful panel reads, with the panel connection's round trips counted at each. */
function ticks(n: number): Promise<number[]> {
  const trips: number[] = [];
  let lastRead = session.getSnapshot().panel.readAt;
  return new Promise((resolve) => {
    const stop = session.subscribe(() => {
      const readAt = session.getSnapshot().panel.readAt;
      if (readAt === undefined || readAt === lastRead) return;
      lastRead = readAt;
      trips.push(proxy.links.filter((l) => l.sent.includes(PANEL_CONNECTION_NAME)).reduce((sum, l) => sum + l.trips, 0));
      if (trips.length === n) {
        stop();
        resolve(trips);
      }
    });
  });
}

describe('the REPL panel', () => {
  it('opens no connection while there is nothing to read', async () => {
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(proxy.links.filter((l) => l.sent.includes(PANEL_CONNECTION_NAME))).toHaveLength(0);
  });

  it('reads every watched and held key in one round trip per tick on its own connection', async () => {
    const redis = rawClient(server);
    for (const key of ['w1', 'w2', 'w3']) await redis.hset(key, owner(1), '1');
    redis.disconnect();
    session.watch(['w1', 'w2', 'w3', 'missing']);
    session.submit('as B acquire held-by-b --lease 20s');
    await new Promise<void>((resolve) => {
      const stop = session.subscribe(() => {
        if (session.getSnapshot().held.some((h) => h.key === 'held-by-b' && h.client === 'B')) resolve(void stop());
      });
    });
    expect(session.panelKeys()).toEqual(['w1', 'w2', 'w3', 'missing', 'held-by-b']);
    const trips = await ticks(8);
    // After the first read (which may load the script), each tick is exactly one more round trip.
    const perTick = trips.slice(2).map((t, i) => t - trips[i + 1]!);
    expect(perTick).toEqual([1, 1, 1, 1, 1, 1]);
    expect(proxy.links.filter((l) => l.sent.includes(PANEL_CONNECTION_NAME))).toHaveLength(1);
    const views = session.getSnapshot().panel.views;
    expect(Object.keys(views).sort()).toEqual(['held-by-b', 'missing', 'w1', 'w2', 'w3']);
  });
});
