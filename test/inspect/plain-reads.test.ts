import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { LockView } from '../../src/core/lock-view.js';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { connect, type Connection, type RedisClient } from '../../src/redis/connection.js';
import { useRedisServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';

// issue 25: a user who may not run EVAL gets plain reads, which cannot be atomic. Every key is
// read twice; a key whose two reads differ is read once more, and one that still differs is
// marked `changed-during-read`. A real second client writes to the key between the reads: the
// moment is found by watching the pipelines the reader sends (the last step of one read of a
// key asks for its PTTL), so the write lands between two reads on the real server.

const fx = useRedisServer({ flushEachTest: true });
let conn: Connection;

beforeAll(async () => {
  await fx.raw.call('ACL', 'SETUSER', 'oncall', 'on', '>pw', '~*', '&*', '-@all', '+@read', '+@connection', '+info');
  conn = await connect(parseEndpointUrl(`redis://oncall:pw@127.0.0.1:${fx.server.port}`), { mode: 'one-shot' });
});

afterAll(async () => {
  await conn?.close();
});

/**
 * The connection with a hook after each complete read of `key`: `afterRead(n)` runs once the
 * n-th read's last step has its reply and before the reader goes on (so before the next read).
 */
function hooked(key: string, afterRead: (n: number) => Promise<void>): { conn: Connection; reads: () => number } {
  let reads = 0;
  const target = conn.client;
  const client = new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (prop !== 'pipeline')
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(obj) : value;
      return (commands?: unknown[][]) => {
        const pipeline = obj.pipeline(commands as never);
        const endsARead = commands?.some(([name, arg]) => name === 'pttl' && arg === key) ?? false;
        if (!endsARead) return pipeline;
        const exec = pipeline.exec.bind(pipeline);
        pipeline.exec = (async () => {
          const results = await exec();
          await afterRead(++reads);
          return results;
        }) as typeof pipeline.exec;
        return pipeline;
      };
    },
  }) as RedisClient;
  return { conn: { ...conn, client }, reads: () => reads };
}

const holdCount = (view: LockView | undefined): number | undefined => view?.holders[0]?.count;

describe('plain reads (EVAL denied) of a key that changes between them', () => {
  it('a key that changed once is read again and shown as read last, not marked', async () => {
    await fx.raw.hset('orders', owner(1), '1');
    const { conn: c, reads } = hooked('orders', async (n) => {
      if (n === 1) await fx.raw.hincrby('orders', owner(1), 1);
    });
    const [view] = await inspectKeys(c, ['orders']);
    expect(reads()).toBe(3); // read, read again (differs from the first), read once more
    expect(view).toMatchObject({ kind: 'reentrant', readConsistency: 'separate-reads' });
    expect(holdCount(view)).toBe(2);
  });

  it('a key still changing on the re-read is marked changed-during-read, and read no more than three times', async () => {
    await fx.raw.hset('orders', owner(1), '1');
    const { conn: c, reads } = hooked('orders', async (n) => {
      if (n <= 2) await fx.raw.hincrby('orders', owner(1), 1);
    });
    const [view] = await inspectKeys(c, ['orders']);
    expect(reads()).toBe(3);
    expect(view).toMatchObject({ kind: 'reentrant', readConsistency: 'changed-during-read' });
    expect(holdCount(view)).toBe(3); // the newest read is the one shown
  });

  it('a key that did not change is read twice and not marked', async () => {
    await fx.raw.hset('orders', owner(1), '1');
    const { conn: c, reads } = hooked('orders', async () => undefined);
    const [view] = await inspectKeys(c, ['orders']);
    expect(reads()).toBe(2);
    expect(view).toMatchObject({ kind: 'reentrant', readConsistency: 'separate-reads' });
  });
});
