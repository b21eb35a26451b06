import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyFate } from '../../src/inspect/scan-filter.js';
import { scanBatches } from '../../src/inspect/scan.js';
import { inspectKeys } from '../../src/inspect/snapshot.js';
import { connect, type Connection } from '../../src/redis/connection.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';

// The scan's cheap probe may only drop a key the full decoder would call not-a-lock too: checked
// here against inspectKeys on a keyspace of look-alikes (strings of every library's format, with
// and without TTL, lock-like names, integers, big values, companions of the wrong type).

const fx = useLockServer();
let conn: Connection;
beforeAll(async () => {
  conn = await connect(parseEndpointUrl(fx.server.url), { mode: 'one-shot' });
});
afterAll(async () => {
  await conn?.close();
});

const hex32 = () => randomBytes(16).toString('hex');

async function lookAlikes(): Promise<void> {
  const strings: [string, string, number?][] = [
    ['plain', 'value:1'],
    ['plain:ttl', 'value:1', 30_000],
    ['orders:lock', 'value:1'],
    ['orders:lock:ttl', 'value:1', 30_000],
    ['redlock-token', hex32()],
    ['redlock-token:ttl', hex32(), 30_000],
    ['redsync', randomBytes(16).toString('base64'), 30_000],
    ['mutex:jobs', randomUUID(), 30_000],
    ['spring:lock-registry', randomUUID()],
    ['counter', '42'],
    ['counter:ttl', '42', 30_000],
    ['job-lock', '7', 30_000],
    ['big', 'x'.repeat(600)],
    ['big-lock', 'x'.repeat(600), 30_000],
    ['empty-lock', '', 30_000],
    ['redisson_lock_token:{pay}', '3'],
    ['redisson_unlock_latch:{pay}:0123456789abcdef0123456789abcdef', '1', 30_000],
    [`{rw}:${owner(1)}:rwlock_timeout:1`, '1', 30_000],
  ];
  for (const [key, value, px] of strings) {
    if (px) await fx.raw.set(key, value, 'PX', px);
    else await fx.raw.set(key, value);
  }
  await fx.raw.hset('user:1', 'name', 'ada');
  await fx.raw.hset('held', owner(1), '1');
  await fx.raw.rpush('redisson_lock_queue:{q}', owner(2));
  await fx.raw.hset('redisson_lock_queue:{h}', 'a', '1'); // a companion's name, the wrong type
  await fx.raw.zadd('{pes}:timeout', Date.now(), randomBytes(16));
  await fx.raw.zadd('semaphore:s', Date.now(), randomUUID());
  await fx.raw.zadd('scores', 1, 'a');
  await fx.raw.sadd('tags', 'a');
  await fx.raw.xadd('events', '*', 'a', '1');
}

async function allBatches(pattern: string, count: number) {
  const batches = [];
  for await (const b of scanBatches(conn, { pattern, count })) batches.push(b);
  return batches;
}

describe('scan', () => {
  it('walks every key once per batch step, with a probe per key, in small steps too', async () => {
    const keys = Array.from({ length: 500 }, (_, i) => `k${i}`);
    await fx.raw.mset(...keys.flatMap((k) => [k, 'v']));
    const batches = await allBatches('*', 7);
    expect(batches.length).toBeGreaterThan(20);
    const seen = batches.flatMap((b) => b.keys.map((k) => k.toString()));
    expect(new Set(seen)).toEqual(new Set(keys));
    expect(batches.every((b) => b.probes.length === b.keys.length)).toBe(true);
    expect((await allBatches('k1?', 1000)).flatMap((b) => b.keys.map(String)).sort()).toEqual(['k10', 'k11', 'k12', 'k13', 'k14', 'k15', 'k16', 'k17', 'k18', 'k19']);
  });

  it('the probe reads types and short values only; big strings are flagged, not read', async () => {
    await lookAlikes();
    const probes = new Map((await allBatches('*', 1000)).flatMap((b) => b.keys.map((k, i) => [k.toString(), b.probes[i]!] as const)));
    expect(probes.get('plain')).toEqual({ type: 'string', long: false, value: 'value:1' });
    expect(probes.get('big')).toEqual({ type: 'string', long: true, value: '' });
    expect(probes.get('user:1')).toEqual({ type: 'hash', long: false, value: '' });
    expect(probes.get('events')).toEqual({ type: 'stream', long: false, value: '' });
  });

  it('agrees with the decoder: every key it drops, inspect calls not-a-lock; companions and latches by name and type', async () => {
    await lookAlikes();
    const batches = await allBatches('*', 1000);
    const fates = batches.flatMap((b) => b.keys.map((k, i) => ({ key: k.toString(), fate: keyFate(k.toString(), b.probes[i]!, Date.now()).fate })));
    const views = await inspectKeys(conn, fates.map((f) => f.key));
    const kinds = Object.fromEntries(views.map((v) => [v.key, v.kind]));
    for (const { key, fate } of fates) {
      if (fate === 'not-a-lock') expect(kinds[key], key).toBe('not-a-lock');
    }
    const byFate = (fate: string) => fates.filter((f) => f.fate === fate).map((f) => f.key).sort();
    expect(byFate('skip')).toEqual(['redisson_unlock_latch:{pay}:0123456789abcdef0123456789abcdef']);
    expect(byFate('companion')).toEqual([`redisson_lock_queue:{q}`, 'redisson_lock_token:{pay}', `{pes}:timeout`, `{rw}:${owner(1)}:rwlock_timeout:1`].sort());
    // Dropped without a snapshot: the bulk of a real keyspace.
    expect(byFate('not-a-lock')).toEqual(['big', 'big-lock', 'events', 'plain', 'plain:ttl', 'tags']);
  });
});
