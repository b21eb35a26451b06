import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { Redisson } from 'node-redisson';
import { TimeUnit } from 'node-redisson/dist/utils/TimeUnit.js';
import Redlock, { type Lock } from 'redlock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashLock } from '../../src/locks/hash-lock.js';
import { useLockServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { startTrace, tally } from './trace-fixture.js';

// Real traffic from three clients, in this process, each on its own connections: ours (the
// Redisson protocol from src/locks), node-redlock v5 and node-redisson. Every acquisition,
// renewal and release a client reports must appear in the trace under the owner that client
// used, as many times as it reported it, and safe traffic must give no finding at all.

const fx = useLockServer();
let redlock: Redlock;
let redisson: Redisson;
beforeAll(() => {
  redlock = new Redlock([rawClient(fx.server)], { retryCount: 0 });
  redisson = new Redisson({ redis: { options: { host: '127.0.0.1', port: fx.server.port } } });
});
afterAll(async () => {
  await redisson?.quit();
  for (const c of redlock?.clients ?? []) c.disconnect();
});

type Reported = Map<string, number>;
const count = (m: Reported, key: string) => m.set(key, (m.get(key) ?? 0) + 1);

/** Our reentrant lock: N owners contend on one key; each acquisition is renewed once, then released. */
async function ours(owners: number, rounds: number, reported: Reported): Promise<number> {
  const lock = hashLock('reentrant');
  let ops = 0;
  await Promise.all(
    Array.from({ length: owners }, async (_, i) => {
      const req = { key: 'ours', owner: `0000000${i}-1111-4000-8000-000000000000:${i + 1}`, leaseMs: 10_000 };
      for (let r = 0; r < rounds; r++) {
        ops++;
        if (!(await lock.tryAcquire(fx.env, req)).acquired) continue;
        count(reported, `acquired ${req.owner}`);
        ops += 2;
        if (await lock.renew(fx.env, req)) count(reported, `renewed ${req.owner}`);
        if ((await lock.release(fx.env, req)) === 'released') count(reported, `released ${req.owner}`);
      }
    }),
  );
  return ops;
}

/** node-redlock: two loops contend on one resource; acquire, extend, release. */
async function nodeRedlock(rounds: number, reported: Reported): Promise<number> {
  let ops = 0;
  await Promise.all(
    [0, 1].map(async () => {
      for (let r = 0; r < rounds; r++) {
        ops++;
        let lock: Lock;
        try {
          lock = await redlock.acquire(['nr'], 10_000);
        } catch {
          continue;
        }
        count(reported, `acquired ${lock.value}`);
        lock = await lock.extend(10_000);
        count(reported, `renewed ${lock.value}`);
        await lock.release();
        count(reported, `released ${lock.value}`);
        ops += 2;
      }
    }),
  );
  return ops;
}

/** node-redisson: one RLock, lock with a lease then unlock. */
async function nodeRedisson(rounds: number, reported: Reported): Promise<number> {
  const lock = redisson.getLock('nrs');
  const owner = `${(lock as unknown as { id: string }).id}:${lock.clientId}`;
  for (let r = 0; r < rounds; r++) {
    await lock.lock(10_000, TimeUnit.MILLISECONDS);
    count(reported, `acquired ${owner}`);
    await lock.unlock();
    count(reported, `released ${owner}`);
  }
  return rounds * 2;
}

describe('trace on real traffic', () => {
  it('every acquisition, renewal and release of ours, node-redlock and node-redisson, with the right owner; no finding', async () => {
    const trace = await startTrace(parseEndpointUrl(fx.server.url));
    const reported = { ours: new Map(), nr: new Map(), nrs: new Map() } as Record<string, Reported>;
    const ops = (await Promise.all([ours(4, 1200, reported.ours!), nodeRedlock(500, reported.nr!), nodeRedisson(2000, reported.nrs!)])).reduce((a, b) => a + b, 0);
    await trace.stop(fx.raw);

    expect(ops).toBeGreaterThanOrEqual(10_000);
    for (const lock of ['ours', 'nr', 'nrs']) {
      const seen = tally(trace.events, lock, ['acquired', 'renewed', 'released']);
      expect(seen, lock).toEqual(reported[lock]);
    }
    // Contention was real: refusals were seen, and each names a holder.
    const refused = trace.events.filter((e) => e.kind === 'refused');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((e) => (e.holders ?? []).length === 1)).toBe(true);
    expect(trace.findings).toEqual([]);
    expect(trace.events.filter((e) => e.kind === 'expired' || e.kind === 'raw')).toEqual([]);
  }, 120_000);
});
