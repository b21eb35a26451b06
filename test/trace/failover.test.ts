import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { afterAll, describe, expect, it } from 'vitest';
import { openLockEnv, type OpenLockEnv } from '../../src/locks/env.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { waitForReplicas } from '../../src/sandbox/stall.js';
import type { TargetSpec } from '../../src/redis/target.js';
import { owner } from '../helpers/lock-env.js';
import { eventually, useSandbox } from '../helpers/sandbox.js';
import { startTrace } from './trace-fixture.js';

// Sentinel failover on a real topology: one lock replicated before the fault (WAIT acknowledged),
// one written while replication was stalled. The trace follows the master across the failover
// and finds exactly the unreplicated one missing on the promoted primary.

const lock = hashLock('reentrant');
const envs: OpenLockEnv[] = [];
afterAll(async () => {
  await Promise.all(envs.splice(0).map((e) => e.close()));
});

// Both sources, each on its own sandbox. Config is not replicated: with keyspace notifications the
// promoted primary gets the flags when the trace reaches it (--enable-notifications).
describe.each(['monitor', 'keyspace'] as const)('trace across a Sentinel failover (%s)', (source) => {
  const fx = useSandbox({ topology: 'sentinel', name: `trace-failover-${source}` });

  it('a lock acquired on the old primary and absent on the promoted one: lost-in-failover; a replicated one is not', async () => {
    const { sentinel } = fx.sandbox.urls;
    const spec: TargetSpec = { ...parseEndpointUrl('redis://127.0.0.1'), sentinels: sentinel!.hosts.map((h) => ({ host: '127.0.0.1', port: Number(h.split(':')[1]) })), masterName: sentinel!.masterName };
    const client = async () => {
      const env = await openLockEnv(spec, { mode: 'long-lived', name: 'redlock-cli:test', pubsub: 'plain' });
      envs.push(env);
      return env;
    };
    const trace = await startTrace(spec, { source, enableNotifications: source === 'keyspace' });
    const a = await client();
    expect(await lock.tryAcquire(a, { key: 'kept', owner: owner(1), leaseMs: 60_000 })).toMatchObject({ acquired: true });
    expect(await waitForReplicas(a.conn.client, 2, 2000)).toBe(2);
    const settle = (fx.sandbox.state.settledAt ?? 0) - Date.now();
    if (settle > 0) await new Promise((r) => setTimeout(r, settle));
    for (const replica of ['n2', 'n3']) await fx.sandbox.stallReplication(replica, { forMs: 2000 });
    expect(await lock.tryAcquire(a, { key: 'orders', owner: owner(1), leaseMs: 60_000 })).toMatchObject({ acquired: true });
    await eventually(async () => trace.events.some((e) => e.lock === 'orders' && e.kind === 'acquired'), 5000);

    const failover = await fx.sandbox.failover({ how: 'kill' });
    for (const replica of ['n2', 'n3']) await fx.sandbox.heal(replica);
    // Said once the promoted primary's stream is followed: traffic sent from then on is seen.
    await eventually(async () => trace.status.some((s) => s.startsWith('failover: now following')), 30_000);
    // The trace follows the new primary: a second client's acquisition there is seen.
    const b = await client();
    expect(await lock.tryAcquire(b, { key: 'orders', owner: owner(2), leaseMs: 60_000 })).toMatchObject({ acquired: true });
    const primary = await fx.sandbox.node(failover.to);
    await trace.stop(b.conn.client);

    const moved = trace.events.find((e) => e.kind === 'failover');
    expect(moved?.detail).toMatch(new RegExp(`to 127\\.0\\.0\\.1:${primary.port}$`));
    expect(trace.findings.map((f) => [f.kind, f.lock, f.owners])).toEqual([['lost-in-failover', 'orders', [owner(1)]]]);
    // Attempts come with MONITOR only: the outcomes are the same for both sources.
    expect(trace.events.filter((e) => e.lock === 'orders' && e.kind !== 'attempt').map((e) => `${e.kind} ${e.owner}`)).toEqual([
      `acquired ${owner(1)}`,
      `lost-in-failover ${owner(1)}`,
      `acquired ${owner(2)}`,
    ]);
    const attempts = trace.events.filter((e) => e.lock === 'orders' && e.kind === 'attempt').map((e) => e.owner);
    expect(attempts).toEqual(source === 'monitor' ? [owner(1), owner(2)] : []);
  }, 90_000);
});
