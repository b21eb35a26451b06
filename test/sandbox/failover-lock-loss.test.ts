import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { afterEach, describe, expect, it } from 'vitest';
import { hashLock } from '../../src/locks/hash-lock.js';
import { openLockEnv, type OpenLockEnv } from '../../src/locks/env.js';
import type { LockRequest } from '../../src/locks/types.js';
import { waitForReplicas } from '../../src/sandbox/stall.js';
import { owner } from '../helpers/lock-env.js';
import { useSandbox, type SandboxFixture } from '../helpers/sandbox.js';

// Scenario S6 end to end on a real Sentinel topology, with our own lock engine: a Redisson-style
// lock acknowledged by the primary is lost when the primary dies before replicating it, and a
// second client acquires it; WAIT on the writing connection is what tells the two cases apart.

const lock = hashLock('reentrant');
const envs: OpenLockEnv[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((e) => e.close()));
});

/** A lock client that finds the primary through the sandbox's sentinels, as an application would. */
async function lockClient(fx: SandboxFixture): Promise<OpenLockEnv> {
  const { sentinel } = fx.sandbox.urls;
  const env = await openLockEnv(
    { ...parseEndpointUrl('redis://127.0.0.1'),
      sentinels: sentinel!.hosts.map((h) => ({ host: '127.0.0.1', port: Number(h.split(':')[1]) })),
      masterName: sentinel!.masterName,
    },
    { mode: 'long-lived', name: 'redlock-cli:test', pubsub: 'plain' },
  );
  envs.push(env);
  return env;
}

const request = (n: number): LockRequest => ({ key: 'orders', owner: owner(n), leaseMs: 30_000 });

describe('a lock on a Sentinel primary whose replication was stalled', () => {
  const fx = useSandbox({ topology: 'sentinel', name: 'lossy' });

  it('is gone after failover, and a second client acquires it', async () => {
    const a = await lockClient(fx);
    // failover waits out the sentinels' start-up flapping before it kills; the stall must still be
    // on then. It also holds up Sentinel's promotion (its SLAVEOF NO ONE runs in a MULTI the pause
    // blocks), so keep it short: the loss happens the moment the primary dies.
    const settle = (fx.sandbox.state.settledAt ?? 0) - Date.now();
    if (settle > 0) await new Promise((r) => setTimeout(r, settle));
    for (const replica of ['n2', 'n3']) await fx.sandbox.stallReplication(replica, { forMs: 2000 });
    expect(await lock.tryAcquire(a, request(1))).toMatchObject({ acquired: true });
    // The mitigation would have caught it: no replica acknowledges the lock write.
    expect(await waitForReplicas(a.conn.client, 1, 100)).toBe(0);

    const failover = await fx.sandbox.failover({ how: 'kill' });
    expect(failover.ms).toBeLessThan(5000);
    expect(failover.from).toBe('n1');
    expect(['n2', 'n3']).toContain(failover.to);
    for (const replica of ['n2', 'n3']) await fx.sandbox.heal(replica);

    const b = await lockClient(fx);
    expect(await lock.tryAcquire(b, request(2))).toMatchObject({ acquired: true });
    // Client A still believes it holds "orders": two holders, the lock loss users fear.
    expect(await b.conn.client.hgetall('orders')).toEqual({ [owner(2)]: '1' });
  });
});

describe('a lock on a Sentinel primary that a replica acknowledged through WAIT', () => {
  const fx = useSandbox({ topology: 'sentinel', name: 'safe' });

  it('survives the failover: the second client is refused and sees the first as holder', async () => {
    const a = await lockClient(fx);
    expect(await lock.tryAcquire(a, request(1))).toMatchObject({ acquired: true });
    expect(await waitForReplicas(a.conn.client, 1, 1000)).toBeGreaterThanOrEqual(1);

    const failover = await fx.sandbox.failover({ how: 'kill' });
    expect(failover.from).toBe('n1');

    const b = await lockClient(fx);
    const attempt = await lock.tryAcquire(b, request(2));
    expect(attempt).toMatchObject({ acquired: false, holders: [{ owner: owner(1), count: 1 }] });
    if (!attempt.acquired) expect(attempt.ttlMs).toBeGreaterThan(20_000);
  });
});
