import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { createServer, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fairQueueKey, fairTimeoutKey } from '../../src/core/names.js';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { connect } from '../../src/redis/connection.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';

const fx = useLockServer();
const lock = hashLock('reentrant');
const req = (key: string, n: number, leaseMs = 10_000) => ({ key, owner: owner(n), leaseMs });

describe('big and odd keys', () => {
  it('a 1,000-waiter fair queue, written as Redisson enqueues (RPUSH + ZADD deadline), read in full', async () => {
    await lock.tryAcquire(fx.env, req('q', 0, 30_000));
    const now = Date.now();
    const pipeline = fx.raw.pipeline();
    for (let i = 1; i <= 1000; i++) {
      pipeline.zadd(fairTimeoutKey('q'), now + 30_000 + i * 5000, owner(i));
      pipeline.rpush(fairQueueKey('q'), owner(i));
    }
    await pipeline.exec();
    const started = performance.now();
    const [v] = await inspectKeys(fx.env.conn, ['q']);
    // One script call: well under this on a quiet machine; the bound only catches a pathology.
    expect(performance.now() - started).toBeLessThan(3000);
    expect(v!.kind).toBe('fair');
    expect(v!.queue).toHaveLength(1000);
    expect(v!.queue!.map((q) => q.owner)).toEqual(Array.from({ length: 1000 }, (_, i) => owner(i + 1)));
    expect(v!.queue![999]!.expectedWaitMs).toBe(v!.queue![998]!.deadlineInMs);
    expect(v!.warnings).toEqual([]);
  });

  it('a 100,000-field hash that is not a lock: its size, from a sample, quickly', async () => {
    for (let chunk = 0; chunk < 100; chunk++) {
      const fields: Record<string, string> = {};
      for (let i = 0; i < 1000; i++) fields[`user:${chunk * 1000 + i}`] = 'x';
      await fx.raw.hset('users', fields);
    }
    await fx.raw.config('RESETSTAT');
    const started = performance.now();
    const [v] = await inspectKeys(fx.env.conn, ['users']);
    expect(performance.now() - started).toBeLessThan(2000);
    // Quick because it samples: the server never ran HGETALL on it (commandstats count script calls too).
    const stats = String(await fx.raw.info('commandstats'));
    expect(stats).toMatch(/^cmdstat_hscan:calls=1,/m);
    expect(stats).not.toMatch(/^cmdstat_hgetall:/m);
    expect(v).toMatchObject({ kind: 'not-a-lock', type: 'hash', size: 100_000, holders: [] });
  });

  it('a binary key name: read by its exact bytes, shown escaped, with its hex', async () => {
    const name = Buffer.from([0x6c, 0x6b, 0xff, 0x0a]);
    await fx.raw.hset(name, owner(1), '1');
    await fx.raw.pexpire(name, 10_000);
    await fx.raw.rpush(Buffer.concat([Buffer.from('redisson_lock_queue:{'), name, Buffer.from('}')]), owner(2));
    const [v] = await inspectKeys(fx.env.conn, [name]);
    expect(v).toMatchObject({ key: 'lk\\xff\\x0a', keyHex: '6c6bff0a', kind: 'fair', holders: [{ owner: owner(1) }] });
    expect(v!.queue!.map((q) => q.owner)).toEqual([owner(2)]);
  });
});

describe('keys that change under us', () => {
  it('a key deleted between two reads is simply missing the second time', async () => {
    await lock.tryAcquire(fx.env, req('k', 1));
    expect((await inspectKeys(fx.env.conn, ['k']))[0]!.kind).toBe('reentrant');
    await fx.raw.del('k');
    expect((await inspectKeys(fx.env.conn, ['k']))[0]!.kind).toBe('missing');
  });

  it('a lock taken, released and replaced by a list while being read: every snapshot is whole', async () => {
    let stop = false;
    const churn = (async () => {
      while (!stop) {
        await lock.tryAcquire(fx.env, req('k', 1));
        await lock.release(fx.env, req('k', 1));
        await fx.raw.rpush('k', 'x');
        await fx.raw.del('k');
      }
    })();
    const seen = new Set<string>();
    for (let i = 0; i < 150; i++) {
      for (const v of await inspectKeys(fx.env.conn, ['k', 'k'])) {
        seen.add(v.kind);
        if (v.kind === 'reentrant') expect(v.holders).toEqual([{ owner: owner(1), client: owner(1).slice(0, 36), thread: '1', count: 1 }]);
      }
    }
    stop = true;
    await churn;
    expect([...seen].every((k) => ['reentrant', 'missing', 'not-a-lock'].includes(k))).toBe(true);
    expect(seen.size).toBeGreaterThan(1); // it did see the key change
  });
});

/** A TCP relay that delays every chunk by `ms` each way: one round trip costs 2 × ms. */
async function slowRelay(port: number, ms: number) {
  const sockets: Socket[] = [];
  const relay = createServer((client) => {
    const upstream = new Socket();
    sockets.push(client, upstream);
    upstream.connect(port, '127.0.0.1');
    client.on('data', (d) => setTimeout(() => upstream.write(d), ms));
    upstream.on('data', (d) => setTimeout(() => client.write(d), ms));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  const address = relay.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () => (sockets.forEach((s) => s.destroy()), new Promise((r) => relay.close(r))),
  };
}

describe('round trips', () => {
  it('twenty keys cost one round trip (what --watch pays per tick)', async () => {
    for (let i = 0; i < 20; i++) await lock.tryAcquire(fx.env, req(`k${i}`, i));
    // 250 ms each way: one round trip is 500 ms, two would be 1000, so a busy machine's timer
    // lateness cannot blur them.
    const relay = await slowRelay(fx.server.port, 250);
    const conn = await connect(parseEndpointUrl(`redis://127.0.0.1:${relay.port}`), { mode: 'one-shot' });
    try {
      const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
      await inspectKeys(conn, keys); // the first call also loads the script (EVAL, in the same pipeline)
      const started = performance.now();
      const views = await inspectKeys(conn, keys);
      const elapsed = performance.now() - started;
      expect(views.every((v) => v.kind === 'reentrant')).toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(495);
      expect(elapsed).toBeLessThan(950);
    } finally {
      await conn.close();
      await relay.close();
    }
  });
});

describe('what is read of keys that cannot be locks', () => {
  it('a 200-field app hash and a big zset outside semaphore: come back as size only, a 200-reader rw lock whole', async () => {
    const fields: Record<string, string> = {};
    for (let i = 0; i < 200; i++) fields[`f${i}`] = String(i);
    await fx.raw.hset('profile', fields);
    await fx.raw.zadd('board', ...Array.from({ length: 2000 }, (_, i) => [i, `m${i}`]).flat());
    const readers: Record<string, string> = { mode: 'read' };
    for (let i = 0; i < 200; i++) readers[owner(i)] = '1';
    await fx.raw.hset('many-readers', readers);
    await fx.raw.pexpire('many-readers', 10_000);
    const [profile, board, rw] = await inspectKeys(fx.env.conn, ['profile', 'board', 'many-readers']);
    expect(profile).toMatchObject({ kind: 'not-a-lock', size: 200, warnings: [] });
    expect(board).toMatchObject({ kind: 'not-a-lock', type: 'zset', size: 2000 });
    expect(rw!.kind).toBe('rw');
    expect(rw!.readers).toHaveLength(200);
    expect(rw!.readers!.every((r) => r.zombie)).toBe(true); // no timeout keys were written
  });
});
