import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { LockView } from '../../src/core/lock-view.js';
import { useRedisServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Spring Integration RedisLockRegistry locks through the commands a user runs (docs/lock-formats.md):
// inspect names the registry and says what is normal, ls and doctor list it without a finding,
// --kind spring takes it as a registry client would, and force-unlock wakes PUB_SUB_LOCK waiters.

const fx = useRedisServer({ flushEachTest: true });
const env = tempStateEnv();
const cli = (argv: readonly string[]) => runCli(argv, { ...env, REDIS_URL: fx.server.url });
const KEY = 'orders:invoice-7';
const CLIENT_ID = '3f2a6c1e-8b4d-4e2a-9c1f-7d5e6b4a3c21';
const OTHER_ID = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

let subs: Redis[] = [];
afterEach(() => {
  for (const s of subs) s.disconnect();
  subs = [];
});

/** A PUB_SUB_LOCK registry `orders` listening for unlocks; drained() sees every message sent before it. */
async function registryListener() {
  const sub = rawClient(fx.server);
  subs.push(sub);
  const heard: string[] = [];
  sub.on('pmessage', (_p: string, channel: string, message: string) => heard.push(`${channel} ${message}`));
  await sub.psubscribe('orders-channel:*');
  return { drained: async () => (await sub.ping(), heard) };
}

describe('Spring RedisLockRegistry locks in the commands', () => {
  it('inspect shows the registry, the lock name, the client id and what is normal for it', async () => {
    await fx.raw.set(KEY, CLIENT_ID, 'PX', 60_000);
    const r = await cli(['inspect', KEY]);
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/expires in [\d.]+ s/, 'expires in N s')).toBe(
      'orders:invoice-7  token lock (spring), expires in N s\n' +
        '  held by   3f2a6c1e-8b4d-4e2a-9c1f-7d5e6b4a3c21\n' +
        '  registry  orders, lock invoice-7\n' +
        "  note      Spring RedisLockRegistry lock: the value is its registry's client id, shared by every lock that registry holds; it expires after 1 m 00 s unless the registry was given another expiry or renews it; PUB_SUB_LOCK waiters listen on the pattern orders-channel:*, which PUBSUB cannot count per lock\n",
    );
    const [view] = JSON.parse((await cli(['inspect', KEY, '--json'])).stdout) as LockView[];
    expect(view).toMatchObject({ kind: 'token', library: 'spring', tokenFacts: { registryKey: 'orders', lockKey: 'invoice-7', id: CLIENT_ID } });
  });

  it('ls lists it as a spring lock and doctor finds nothing wrong with a held registry lock', async () => {
    await fx.raw.set(KEY, CLIENT_ID, 'PX', 60_000);
    await fx.raw.set('orders:invoice-8', CLIENT_ID, 'PX', 5_000);
    const ls = await cli(['ls', '--json']);
    expect(ls.code).toBe(0);
    const views = JSON.parse(ls.stdout) as LockView[];
    const rows = views.map((v) => [v.key, v.library, v.warnings.filter((w) => w.severity !== 'info')]);
    expect(rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['orders:invoice-7', 'spring', []],
      ['orders:invoice-8', 'spring', []],
    ]);
    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(0);
    expect(doctor.stderr).toContain('no problems found in 2 locks');
  });

  it('acquire --kind spring writes a client id with the registry default of 60 s; a second client is refused; release wakes the waiter', async () => {
    const listener = await registryListener();
    const taken = await cli(['acquire', KEY, '--kind', 'spring', '--owner', CLIENT_ID, '--json']);
    expect(taken.code).toBe(0);
    expect(JSON.parse(taken.stdout)).toMatchObject({ acquired: true, kind: 'spring', owner: CLIENT_ID, leaseMs: 60_000 });
    expect(await fx.raw.get(KEY)).toBe(CLIENT_ID);
    expect(await fx.raw.pttl(KEY)).toBeGreaterThan(30_000);
    const refused = await cli(['acquire', KEY, '--kind', 'spring', '--owner', OTHER_ID]);
    expect(refused.code).toBe(5);
    expect(await fx.raw.get(KEY)).toBe(CLIENT_ID);
    const released = await cli(['release', KEY, '--kind', 'spring', '--owner', CLIENT_ID]);
    expect(released.code).toBe(0);
    expect(await fx.raw.exists(KEY)).toBe(0);
    expect(await listener.drained()).toEqual(['orders-channel:orders:invoice-7 orders:invoice-7']);
  });

  it('force-unlock recognises a registry lock without --kind and wakes its PUB_SUB_LOCK waiters', async () => {
    const listener = await registryListener();
    await fx.raw.set(KEY, OTHER_ID, 'PX', 60_000);
    const r = await cli(['force-unlock', KEY, '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('force-unlocked "orders:invoice-7" (spring); waiters were notified\n');
    expect(await fx.raw.exists(KEY)).toBe(0);
    expect(await listener.drained()).toEqual(['orders-channel:orders:invoice-7 orders:invoice-7']);
  });
});
