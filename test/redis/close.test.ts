import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeConnection } from '../../src/redis/close.js';
import { connect, type Connection } from '../../src/redis/connection.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

// The one bounded close: QUIT when Redis answers, and the socket dropped when it does not
// answer within the deadline, so exiting never waits on a server that went away.

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

const clientNames = async (): Promise<string> => {
  const probe = await connect(parseEndpointUrl(server.url), { mode: 'one-shot', name: 'probe' });
  try {
    return (await probe.client.client('LIST')) as string;
  } finally {
    await probe.close();
  }
};

/** Settles once ioredis has let go of the connection for good. */
const ended = (conn: Connection): Promise<void> =>
  new Promise((resolve) => (conn.client.status === 'end' ? resolve() : conn.client.once('end', () => resolve())));

describe('closeConnection', () => {
  it('says QUIT to a server that answers: the server sees the client go', async () => {
    const conn = await connect(parseEndpointUrl(server.url), { mode: 'long-lived', name: 'close-polite' });
    expect(await clientNames()).toContain('name=close-polite');
    await closeConnection(conn);
    await ended(conn);
    expect(await clientNames()).not.toContain('name=close-polite');
  });

  it('drops the socket of a server that does not answer, without waiting for it', async () => {
    const conn = await connect(parseEndpointUrl(server.url), { mode: 'long-lived', name: 'close-hung' });
    process.kill(server.pid, 'SIGSTOP');
    let woke = false;
    const wake = (): void => {
      if (woke) return;
      woke = true;
      process.kill(server.pid, 'SIGCONT');
    };
    // A bound on the test, far beyond the close's deadline: had the close waited for QUIT's
    // answer, it would return only after this woke the server.
    const timer = setTimeout(wake, 5000);
    try {
      await closeConnection(conn, 200);
      await ended(conn);
      expect(woke).toBe(false);
    } finally {
      clearTimeout(timer);
      wake();
    }
  });
});
