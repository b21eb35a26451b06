import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { useLockServer } from '../helpers/fixture.js';
import { startTrace } from './trace-fixture.js';

// The stuck-lock finding on real traffic: a long hold that a waiter waits out is contention and
// shows nothing; the same hold after a release that left its reentrant count at 1 is a deadlock.
// The waits are counted in refusals the server saw, never in how fast this machine runs them.

const fx = useLockServer();
const lock = hashLock('reentrant');
const owner = (n: number) => `0000000${n}-2222-4000-8000-000000000000:${n}`;

/**
 * B is refused until its last refusal comes `waitMs` after its first, while the holder renews every
 * 300 ms (a 3 s lease: a busy machine cannot let it run out); returns the refusals.
 */
async function contend(key: string, waitMs: number): Promise<number> {
  const a = { key, owner: owner(1), leaseMs: 3000 };
  const b = { key, owner: owner(2), leaseMs: 3000 };
  const first = Date.now();
  for (let refused = 1; ; refused++) {
    if ((await lock.tryAcquire(fx.env, b)).acquired) throw new Error(`B got ${key} while A held it`);
    if (Date.now() - first >= waitMs) return refused;
    expect(await lock.renew(fx.env, a)).toBe(true);
    await sleep(300);
  }
}

describe('trace: deadlock on real traffic', () => {
  it('a 2 s wait behind a renewing holder that then releases is contention; after a release that left the count at 1, a deadlock', async () => {
    const trace = await startTrace(parseEndpointUrl(fx.server.url));
    const a = { key: 'healthy', owner: owner(1), leaseMs: 3000 };
    expect((await lock.tryAcquire(fx.env, a)).acquired).toBe(true);
    expect(await contend('healthy', 2000)).toBeGreaterThan(2);
    expect(await lock.release(fx.env, a)).toBe('released');
    expect((await lock.tryAcquire(fx.env, { ...a, owner: owner(2) })).acquired).toBe(true);

    const left = { ...a, key: 'left' };
    expect((await lock.tryAcquire(fx.env, left)).acquired).toBe(true);
    expect((await lock.tryAcquire(fx.env, left)).acquired).toBe(true);
    expect(await lock.release(fx.env, left)).toBe('decremented');
    await contend('left', 2000);
    await trace.stop(fx.raw);
    expect(trace.findings.filter((f) => f.lock === 'healthy')).toEqual([]);
    const stuck = trace.findings.filter((f) => f.lock === 'left');
    expect(stuck.map((f) => [f.kind, f.why, f.owners, f.unsafe, f.liveness])).toContainEqual(['deadlock', 'count-left', [owner(1), owner(2)], false, true]);
  }, 30_000);
});
