import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openLockEnv, type OpenLockEnv } from '../../src/locks/env.js';
import { newOwner } from '../../src/locks/owners.js';
import { redlockLock } from '../../src/locks/redlock.js';
import { nodeTimeoutMs, quorumOf, redlockDrift, redlockValidity } from '../../src/locks/redlock-nodes.js';
import type { ConnectMode } from '../../src/redis/connection.js';
import { rawClient, testEnv } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { expectLeaseSince, expectTtlReported, serverNow } from '../helpers/server-clock.js';

const PASSWORD = 's3cret-pw';
const A = newOwner(redlockLock);
const B = newOwner(redlockLock);
const req = (owner: string, leaseMs = 10_000) => ({ key: 'orders', owner, leaseMs });

/** Three independent primaries, one of them password-protected (its label must not show it). */
async function startNodes(): Promise<RedisServer[]> {
  return Promise.all([startRedis(), startRedis(), startRedis({ password: PASSWORD })]);
}
function nodesEnv(servers: readonly RedisServer[], mode: ConnectMode = 'long-lived'): Promise<OpenLockEnv> {
  const [first] = servers;
  return openLockEnv(parseEndpointUrl(first!.url), { mode, pubsub: 'plain', nodes: servers.map((s) => parseEndpointUrl(s.url)) });
}
/** A raw client per node for asserting state; quiet once its server is stopped on purpose. */
function rawFor(server: RedisServer, i: number): Redis {
  const client = i === 2 ? new Redis({ host: '127.0.0.1', port: server.port, password: PASSWORD, maxRetriesPerRequest: 1 }) : rawClient(server);
  return client.on('error', () => {});
}
const label = (s: RedisServer) => `127.0.0.1:${s.port}`;

describe('redlock arithmetic (node-redlock v5)', () => {
  it('drift is 1 % of the lease rounded, plus 2 ms; validity is lease - elapsed - drift', () => {
    expect(redlockDrift(10_000)).toBe(102);
    expect(redlockDrift(30_000)).toBe(302);
    expect(redlockDrift(150)).toBe(4); // Math.round(1.5) = 2
    expect(redlockDrift(2)).toBe(2);
    expect(redlockValidity(10_000, 50)).toBe(9848);
    expect(redlockValidity(2, 0.1)).toBeLessThan(0);
  });
  it('needs a strict majority, and gives each node a timeout small next to the lease', () => {
    expect([1, 2, 3, 4, 5, 7].map(quorumOf)).toEqual([1, 2, 2, 3, 3, 4]);
    expect([500, 2000, 10_000, 60_000, undefined].map(nodeTimeoutMs)).toEqual([100, 200, 1000, 1000, 1000]);
  });
});

describe('redlock over 3 nodes', () => {
  let servers: RedisServer[];
  let raws: Redis[];
  let env: OpenLockEnv;
  beforeAll(async () => {
    servers = await startNodes();
    raws = servers.map(rawFor);
    env = await nodesEnv(servers);
  });
  afterAll(async () => {
    raws?.forEach((r) => r.disconnect());
    await env?.close();
    await Promise.all((servers ?? []).map((s) => s.stop()));
  });
  beforeEach(async () => {
    await Promise.all(raws.map((r) => r.flushall()));
  });
  /**
   * Each node's key once every command the lock sent has run. An acquire or release returns as soon
   * as a majority answered (as node-redlock does); the last node's SET or DEL may still be queued.
   * A PING on each of the lock's own connections comes back after them (one connection runs its
   * commands in order), so the read cannot overtake them, however busy the machine.
   */
  const values = async () => {
    await Promise.all(env.nodes.map((c) => c.client.ping()));
    return Promise.all(raws.map((r) => r.get('orders')));
  };

  it('takes the same key and token on every node, with votes per node and validity = lease - elapsed - drift', async () => {
    const since = await Promise.all(raws.map(serverNow));
    const started = performance.now();
    const attempt = await redlockLock.tryAcquire(env, req(A, 5000));
    const took = performance.now() - started;
    expect(attempt.acquired).toBe(true);
    if (!attempt.acquired) return;
    expect((await attempt.allVotes)?.map((v) => [v.node, v.result])).toEqual(servers.map((s) => [label(s), 'locked']));
    expect(JSON.stringify(await attempt.allVotes)).not.toContain(PASSWORD);
    expect(await values()).toEqual([A, A, A]);
    for (const [i, r] of raws.entries()) await expectLeaseSince(r, 'orders', 5000, since[i]!);
    expect(attempt.validityMs).toBeLessThanOrEqual(5000 - redlockDrift(5000));
    expect(attempt.validityMs).toBeGreaterThanOrEqual(Math.floor(5000 - redlockDrift(5000) - took));
  });

  it('still acquires with 2 of 3 nodes when the third holds another token', async () => {
    await raws[2]!.set('orders', B, 'PX', 5000);
    const attempt = await redlockLock.tryAcquire(env, req(A));
    expect(attempt.acquired).toBe(true);
    expect((await attempt.allVotes)?.map((v) => v.result)).toEqual(['locked', 'locked', 'held']);
    expect((await attempt.allVotes)?.[2]?.detail).toContain(B);
    // Release needs the same majority and never touches the other token.
    expect(await redlockLock.release(env, req(A))).toBe('released');
    expect(await values()).toEqual([null, null, B]);
  });

  it('no majority when 2 of 3 nodes hold another token: refused, and our one acquisition rolled back', async () => {
    await raws[0]!.set('orders', B, 'PX', 5000);
    await raws[1]!.set('orders', B, 'PX', 4000);
    const before = await raws[0]!.pttl('orders');
    const attempt = await redlockLock.tryAcquire(env, req(A));
    expect(attempt.acquired).toBe(false);
    if (attempt.acquired) return;
    expect((await attempt.allVotes)?.map((v) => v.result)).toEqual(['held', 'held', 'locked']);
    expect((await attempt.allVotes)?.[2]?.detail).toMatch(/rolled back: no majority/);
    expect(attempt.holders).toEqual([{ owner: B, count: 1 }]);
    // The longest TTL among the holding nodes: node 0's 5 s lease, read on its own clock.
    await expectTtlReported(raws[0]!, 'orders', attempt.ttlMs, before);
    expect(await values()).toEqual([B, B, null]);
  });

  it('refuses and rolls back a majority whose validity is gone (lease shorter than the drift)', async () => {
    const attempt = await redlockLock.tryAcquire(env, req(A, 2));
    expect(attempt.acquired).toBe(false);
    expect((await attempt.allVotes)?.map((v) => v.result)).toEqual(['locked', 'locked', 'locked']);
    expect((await attempt.allVotes)?.[0]?.detail).toMatch(/rolled back: validity -?\d+ ms/);
    expect(await values()).toEqual([null, null, null]);
  });

  it('releases on every node; a second release is not-owner', async () => {
    await redlockLock.tryAcquire(env, req(A));
    expect(await redlockLock.release(env, req(B))).toBe('not-owner');
    expect(await values()).toEqual([A, A, A]);
    expect(await redlockLock.release(env, req(A))).toBe('released');
    expect(await values()).toEqual([null, null, null]);
    expect(await redlockLock.release(env, req(A))).toBe('not-owner');
  });

  it('extends on every node only with the right token', async () => {
    await redlockLock.tryAcquire(env, req(A, 1000));
    expect(await redlockLock.renew(env, req(B, 30_000))).toBe(false);
    expect(await redlockLock.renew(env, req(A, 30_000))).toBe(true);
    for (const r of raws) expect(await r.pttl('orders')).toBeGreaterThan(29_000);
  });

  it('a waiter retries like node-redlock until the other majority expires', async () => {
    await raws[0]!.set('orders', B, 'PX', 400);
    await raws[1]!.set('orders', B, 'PX', 400);
    const started = Date.now();
    const attempt = await redlockLock.acquire(env, req(A), { waitMs: 10_000 });
    const took = Date.now() - started;
    expect(attempt.acquired).toBe(true);
    expect(took).toBeGreaterThanOrEqual(390);
    // By retrying soon after the expiry, not by one last try at the end of the 10 s wait (the slack
    // is for a loaded machine; a retry is due every 200 ms + jitter).
    expect(took).toBeLessThan(5000);
    expect(await values()).toEqual([A, A, A]);
  });

  it('force unlock deletes on every node whoever holds it', async () => {
    await raws[0]!.set('orders', B, 'PX', 5000);
    await redlockLock.tryAcquire(env, req(A));
    expect(await redlockLock.forceUnlock(env, 'orders')).toBe(true);
    expect(await values()).toEqual([null, null, null]);
    expect(await redlockLock.forceUnlock(env, 'orders')).toBe(false);
  });

  it('a hung node (SIGSTOP) costs one node timeout, not the lease, and gets an error vote', async () => {
    const hung = servers[1]!;
    process.kill(hung.pid, 'SIGSTOP');
    try {
      // A 3 s lease: the node timeout is 300 ms. Decided well inside the lease (half of it leaves
      // room for a loaded machine), which waiting for the hung node's answer could never be.
      const started = performance.now();
      const attempt = await redlockLock.tryAcquire(env, req(A, 3000));
      expect(nodeTimeoutMs(3000)).toBe(300);
      expect(performance.now() - started).toBeLessThan(1500);
      expect(attempt.acquired).toBe(true);
      // Decided by the two nodes that answered, as node-redlock does; the hung node's vote comes with its timeout.
      expect(attempt.votes?.[1]).toMatchObject({ node: label(hung), result: 'pending' });
      expect((await attempt.allVotes)?.[1]).toMatchObject({ node: label(hung), result: 'error', detail: expect.stringMatching(/within 300 ms/) });
    } finally {
      process.kill(hung.pid, 'SIGCONT');
    }
    // The queued SET lands once the node wakes; our release (same connection, queued after it) still cleans it.
    expect(await redlockLock.release(env, req(A))).toBe('released');
    expect(await values()).toEqual([null, null, null]);
  });
});

describe('redlock with nodes down (one-shot connections, as the CLI uses)', () => {
  let servers: RedisServer[];
  let raws: Redis[];
  let env: OpenLockEnv;
  beforeAll(async () => {
    servers = await startNodes();
    raws = servers.map(rawFor);
    env = await nodesEnv(servers, 'one-shot');
    await servers[2]!.stop();
  });
  afterAll(async () => {
    raws?.forEach((r) => r.disconnect());
    await env?.close();
    await Promise.all((servers ?? []).map((s) => s.stop()));
  });

  it('one node down: the majority still acquires, and the vote table shows the error', async () => {
    const attempt = await redlockLock.tryAcquire(env, req(A));
    expect(attempt.acquired).toBe(true);
    expect((await attempt.allVotes)?.map((v) => v.result)).toEqual(['locked', 'locked', 'error']);
    expect((await attempt.allVotes)?.[2]?.detail).toContain(label(servers[2]!));
    expect(await redlockLock.release(env, req(A))).toBe('released');
    expect(await raws[0]!.exists('orders')).toBe(0);
  });

  it('two nodes down: refused, the lone acquisition rolled back, and release cannot decide', async () => {
    await servers[1]!.stop();
    const attempt = await redlockLock.tryAcquire(env, req(A));
    expect(attempt.acquired).toBe(false);
    expect((await attempt.allVotes)?.map((v) => v.result)).toEqual(['locked', 'error', 'error']);
    expect(await raws[0]!.exists('orders')).toBe(0);
    await expect(redlockLock.release(env, req(A))).rejects.toMatchObject({ exitCode: 3, message: expect.stringMatching(/no majority/) });
    await expect(redlockLock.forceUnlock(env, 'orders')).rejects.toMatchObject({ exitCode: 3 });
  });
});

it('without --nodes it is a usage error, before touching Redis', async () => {
  const server = await startRedis();
  const env = await testEnv(server);
  try {
    await expect(redlockLock.tryAcquire(env, req(A))).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/--nodes/) });
    await expect(redlockLock.acquire(env, req(A), { waitMs: 100 })).rejects.toMatchObject({ exitCode: 2 });
  } finally {
    await env.close();
    await server.stop();
  }
});
