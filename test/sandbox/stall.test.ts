import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { respRunner } from '../../src/sandbox/clock-runner.js';
import { replicaCaughtUp, resumeReplication, stallReplication, waitForReplicas } from '../../src/sandbox/stall.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

let servers: RedisServer[] = [];
let clients: Redis[] = [];
let primary: { server: RedisServer; client: Redis };
let replica: { server: RedisServer; client: Redis };

function client(server: RedisServer): Redis {
  const c = new Redis({ port: server.port, host: '127.0.0.1', retryStrategy: () => null, maxRetriesPerRequest: 0 });
  c.on('error', () => undefined);
  clients.push(c);
  return c;
}

async function node(args: string[] = []): Promise<{ server: RedisServer; client: Redis }> {
  const server = await startRedis({ args });
  servers.push(server);
  return { server, client: client(server) };
}

/** Linked is not live (docs/fault-recipes.md): wait until a probe write is acknowledged through WAIT. */
async function replicate(): Promise<void> {
  await replica.client.call('REPLICAOF', '127.0.0.1', String(primary.server.port));
  for (let i = 0; i < 300; i++) {
    await primary.client.set('probe', String(i));
    if ((await waitForReplicas(primary.client, 1, 20)) === 1) return;
  }
  throw new Error('the replica never acknowledged a probe write');
}

/** The primary dies (SIGKILL) and the replica is promoted by hand, as Sentinel would. */
async function failover(): Promise<void> {
  await primary.server.stop();
  await replica.client.call('REPLICAOF', 'NO', 'ONE');
}

beforeEach(async () => {
  // Disk-based sync: with 7.0's diskless default a fresh replica takes ~5 s to start receiving writes.
  primary = await node(['--repl-diskless-sync', 'no']);
  replica = await node();
  await replicate();
});
afterEach(async () => {
  clients.forEach((c) => c.disconnect());
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  clients = [];
});

describe('replication stall', () => {
  it('without a stall, an acknowledged lock survives the primary dying', async () => {
    await primary.client.set('lock', 'a', 'PX', 30_000);
    expect(await waitForReplicas(primary.client, 1, 10_000)).toBe(1);
    await failover();
    expect(await replica.client.get('lock')).toBe('a');
  });

  it('with the replica stalled, the acknowledged lock is gone after failover and a second client takes it', async () => {
    const stall = await stallReplication(replica.client, 5000);
    expect(stall.untilMs).toBeGreaterThan(Date.now() + 4000);
    expect(await primary.client.set('lock', 'a', 'PX', 30_000, 'NX')).toBe('OK');
    expect(await replicaCaughtUp(primary.client, replica.client)).toMatchObject({ caughtUp: false });
    await failover();
    await resumeReplication(replica.client);
    expect(await replica.client.get('lock')).toBeNull();
    expect(await replica.client.set('lock', 'b', 'PX', 30_000, 'NX')).toBe('OK');
  });

  it('WAIT on the writing connection reports 0 during the stall; a pooled connection wrongly says 1', async () => {
    // Another connection of the same application whose own last write was replicated before the stall.
    const bystander = client(primary.server);
    await bystander.set('unrelated', '1');
    expect(await waitForReplicas(bystander, 1, 10_000)).toBe(1);
    await stallReplication(replica.client);
    await primary.client.set('lock', 'a', 'PX', 30_000);
    const t0 = performance.now();
    expect(await waitForReplicas(primary.client, 1, 100)).toBe(0);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(95);
    expect(await waitForReplicas(bystander, 1, 100)).toBe(1);
  });

  it('resuming lets the replica catch up: the stall delays, only a failover loses', async () => {
    await stallReplication(replica.client);
    await primary.client.set('lock', 'a', 'PX', 30_000);
    await resumeReplication(replica.client);
    expect(await waitForReplicas(primary.client, 1, 10_000)).toBe(1);
    expect(await replica.client.get('lock')).toBe('a');
  });

  it('resuming survives the CLIENT KILL that Sentinel queued behind the stall', async () => {
    // Sentinel reconfigures a replica with MULTI ... CLIENT KILL TYPE normal EXEC; when the pause
    // holds that EXEC back (here through PUBLISH, which a WRITE pause blocks), our UNPAUSE releases
    // it and Redis kills our connection before replying.
    await stallReplication(respRunner(replica.server.port), 5000);
    const sentinel = client(replica.server);
    const reconfigure = sentinel
      .multi()
      .publish('__sentinel__:hello', 'reconfigure')
      .client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes')
      .exec();
    await new Promise((r) => setTimeout(r, 100));
    await resumeReplication(respRunner(replica.server.port));
    expect(await reconfigure).toEqual([
      [null, 0],
      [null, expect.any(Number)],
    ]);
    await primary.client.set('lock', 'a', 'PX', 30_000);
    expect(await waitForReplicas(primary.client, 1, 10_000)).toBe(1);
  });

  it('a stall with a duration ends by itself', async () => {
    await stallReplication(replica.client, 300);
    const t0 = performance.now();
    await primary.client.set('lock', 'a', 'PX', 30_000);
    expect(await waitForReplicas(primary.client, 1, 2000)).toBe(1);
    expect(performance.now() - t0).toBeGreaterThan(250);
    expect(await replicaCaughtUp(primary.client, replica.client)).toEqual({ caughtUp: true, lagBytes: 0 });
  });

  it('refuses to stall a primary', async () => {
    await expect(stallReplication(primary.client)).rejects.toThrow(UsageError);
    await expect(stallReplication(primary.client)).rejects.toThrow(/needs a replica, and this node is a primary/);
  });
});
