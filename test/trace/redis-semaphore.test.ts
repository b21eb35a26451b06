import { parseEndpointUrl } from '../../src/core/endpoint.js';
import type { Redis } from 'ioredis';
import { Mutex, Semaphore } from 'redis-semaphore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRedisServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { startTrace, tally } from './trace-fixture.js';

// redis-semaphore 5.x, real: its Mutex (SET NX PX sent plainly, a compare-and-delete script) and
// its Semaphore (a zset of holder ids: a script acquires, a plain ZREM releases).

const fx = useRedisServer();
let client: Redis;
beforeAll(() => {
  client = rawClient(fx.server);
});
afterAll(() => {
  client?.disconnect();
});

describe('trace decodes redis-semaphore', () => {
  it('every Mutex and Semaphore acquisition and release, with the identifier as owner; no finding', async () => {
    const trace = await startTrace(parseEndpointUrl(fx.server.url));
    const reported = new Map<string, number>();
    const count = (key: string) => reported.set(key, (reported.get(key) ?? 0) + 1);
    for (let i = 0; i < 100; i++) {
      const mutex = new Mutex(client, 'jobs', { lockTimeout: 10_000, refreshInterval: 0 });
      await mutex.acquire();
      count(`acquired ${mutex.identifier}`);
      await mutex.release();
      count(`released ${mutex.identifier}`);
    }
    const permits = [0, 1].map(() => new Semaphore(client, 'slots', 2, { lockTimeout: 10_000, refreshInterval: 0 }));
    for (let i = 0; i < 50; i++) {
      for (const p of permits) await p.acquire();
      for (const p of permits) count(`acquired ${p.identifier}`);
      for (const p of permits) await p.release();
      for (const p of permits) count(`released ${p.identifier}`);
    }
    await trace.stop(fx.raw);
    const seen = new Map([...tally(trace.events, 'mutex:jobs', ['acquired', 'released']), ...tally(trace.events, 'semaphore:slots', ['acquired', 'released'])]);
    expect(seen).toEqual(reported);
    expect(trace.events.filter((e) => e.lock === 'semaphore:slots').every((e) => e.shared === true && e.library === 'semaphore')).toBe(true);
    expect(trace.findings).toEqual([]);
  }, 60_000);
});
