import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { connect, type Connection } from '../../src/redis/connection.js';
import { owner, rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

// A primary with one replica: inspect reports whether the replica has acknowledged the primary's
// latest write (its replication offset), i.e. whether it has the lock's current state yet.

let primary: RedisServer;
let replica: RedisServer;
let conn: Connection;
let raw: Redis;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  primary = await startRedis();
  replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  raw = rawClient(replica);
  await until('the replica link', async () => ((await raw.info('replication')).includes('master_link_status:up') ? true : undefined));
  conn = await connect(parseEndpointUrl(primary.url), { mode: 'long-lived' });
});
afterAll(async () => {
  raw?.disconnect();
  await conn?.close();
  await replica?.stop();
  await primary?.stop();
});

const env = () => ({ conn, nodes: [], pubsub: 'plain' as const, now: Date.now });

describe('replicas', () => {
  it('an in-sync replica shows lag 0 once it has acknowledged the lock write', async () => {
    await hashLock('reentrant').tryAcquire(env(), { key: 'orders', owner: owner(1), leaseMs: 30_000 });
    const v = await until('the replica to ack', async () => {
      const [view] = await inspectKeys(conn, ['orders']);
      return view!.replicas?.[0]?.lagBytes === 0 ? view : undefined;
    });
    expect(v!.replicas).toEqual([{ replica: `127.0.0.1:${replica.port}`, offset: expect.any(Number), lagBytes: 0 }]);
  });

  it('a stopped replica falls behind: the write it has not seen shows as lag', async () => {
    process.kill(replica.pid, 'SIGSTOP');
    try {
      await hashLock('reentrant').tryAcquire(env(), { key: 'jobs', owner: owner(2), leaseMs: 30_000 });
      const [v] = await inspectKeys(conn, ['jobs']);
      expect(v!.replicas![0]!.lagBytes).toBeGreaterThan(0);
    } finally {
      process.kill(replica.pid, 'SIGCONT');
    }
  });

  it('inspect also runs on the replica itself (the script is read-only), without a replicas list', async () => {
    const onReplica = await connect(parseEndpointUrl(replica.url), { mode: 'one-shot' });
    try {
      const v = await until('the lock to reach the replica', async () => {
        const [view] = await inspectKeys(onReplica, ['orders']);
        return view!.kind === 'reentrant' ? view : undefined;
      });
      expect(v!.holders[0]!.owner).toBe(owner(1));
      expect(v!.replicas).toBeUndefined();
    } finally {
      await onReplica.close();
    }
  });
});
