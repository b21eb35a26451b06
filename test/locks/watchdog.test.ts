import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { hashLock } from '../../src/locks/hash-lock.js';
import { startWatchdog, type Watchdog, type WatchdogEvent } from '../../src/locks/watchdog.js';
import { watchConnection } from '../../src/redis/watch-connection.js';
import { owner } from '../helpers/lock-env.js';
import { useLockServer } from '../helpers/fixture.js';

const fx = useLockServer();
const running: Watchdog[] = [];

afterEach(() => {
  for (const w of running.splice(0)) w.stop();
});

const LEASE = 600; // renewals every 200 ms
const rlock = hashLock('reentrant');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function hold(mode: 'watchdog' | 'fixed', leaseMs = LEASE, key = 'orders') {
  const req = { key, owner: owner(1), leaseMs };
  const leaseStartedAt = Date.now();
  const attempt = await rlock.tryAcquire(fx.env, req);
  expect(attempt.acquired).toBe(true);
  const events: WatchdogEvent[] = [];
  /** When each event reached us: a `renewed` one, when the renewal's reply came. */
  const heardAt: number[] = [];
  const dog = startWatchdog({
    env: fx.env,
    protocol: rlock,
    req,
    mode,
    leaseStartedAt,
    onEvent: (e) => {
      events.push(e);
      heardAt.push(Date.now());
    },
  });
  running.push(dog);
  return { dog, events, heardAt, req };
}

describe('watchdog mode', () => {
  it('renews every lease/3: the TTL never drops below what the renewal gaps allow', async () => {
    const lease = 900; // renewals every 300 ms; every lease/2 would leave gaps of 450
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const { dog, events, heardAt } = await hold('watchdog', lease);
    let lowest = Number.POSITIVE_INFINITY;
    const until = Date.now() + lease * 3; // nine renewal periods, three whole leases
    while (Date.now() < until) {
      lowest = Math.min(lowest, await fx.raw.pttl('orders'));
      await sleep(20);
    }
    loop.disable();
    // How late any timer of this process could have fired: the busy machine's share of a gap.
    const timersLateMs = loop.max / 1e6;
    const renewals = events.flatMap((e, i) => (e.type === 'renewed' ? [{ sent: e.at, replied: heardAt[i]! }] : []));
    const gaps = renewals.slice(1).map((r, i) => r.sent - renewals[i]!.sent);
    // The next renewal is timed from the reply to the last: a server slow to answer stretches a gap too.
    const slowestReplyMs = Math.max(...renewals.map((r) => r.replied - r.sent));
    const info = JSON.stringify({ lowest, timersLateMs, slowestReplyMs, gaps });
    expect(dog.renewals, info).toBeGreaterThanOrEqual(6);
    // Never early (Node may fire a timer a few ms early; the watchdog allows for 5)...
    expect(Math.min(...gaps), info).toBeGreaterThanOrEqual(lease / 3 - 6);
    // ...and late only by what the machine made every timer late: a lease/2 period cannot hide here.
    expect(Math.max(...gaps), info).toBeLessThanOrEqual(Math.max(lease / 3, slowestReplyMs) + timersLateMs + 50);
    // The server's side: the key never got closer to expiring than the longest gap allows (a
    // missed renewal would show as ~1/3 of the lease, or -2: gone).
    expect(lowest, info).toBeGreaterThan(lease - Math.max(...gaps) - 100);
    const renewed = events.filter((e) => e.type === 'renewed');
    expect(renewed.at(-1)).toMatchObject({ type: 'renewed', ttlMs: lease, renewals: dog.renewals });
  });

  it('detects a force-unlock (fx.raw DEL) as lost within one period, naming nobody as holder', async () => {
    const { dog } = await hold('watchdog', 3000);
    await sleep(250);
    const deletedAt = Date.now();
    await fx.raw.del('orders');
    const end = await dog.ended;
    // Seen at a renewal (every 1 s): the lease running out first would end it as 'lease-ran-out'.
    expect(end).toMatchObject({ type: 'lost', reason: 'renewal-refused', holders: [] });
    expect(end.at - deletedAt).toBeLessThan(3000);
  });

  it('reports who took the lock after it was lost', async () => {
    const { dog } = await hold('watchdog');
    await fx.raw.del('orders');
    await fx.raw.hset('orders', owner(2), '1');
    await fx.raw.pexpire('orders', 5000);
    const end = await dog.ended;
    expect(end).toMatchObject({ type: 'lost', holders: [{ owner: owner(2), count: 1 }] });
  });

  it('stop() stops renewing: the key then expires on its own lease', async () => {
    const { dog } = await hold('watchdog');
    await sleep(250);
    dog.stop();
    expect((await dog.ended).type).toBe('stopped');
    // Nothing renews it any more: its expiry time never moves, and it is gone within the lease.
    const expiresAt = await fx.raw.pexpiretime('orders');
    const stoppedAt = Date.now();
    for (let seen = expiresAt; seen !== -2; seen = await fx.raw.pexpiretime('orders')) {
      expect(seen).toBe(expiresAt);
      expect(Date.now() - stoppedAt).toBeLessThan(LEASE + 5000);
      await sleep(25);
    }
  });
});

describe('connection', () => {
  it('says "reconnecting" when the connection drops, and keeps renewing once it is back', async () => {
    const { dog } = await hold('watchdog');
    const seen: string[] = [];
    const unwatch = watchConnection(fx.env.conn, (e) => seen.push(e.type));
    try {
      await fx.raw.client('KILL', 'SKIPME', 'yes'); // drops every other client: the lock's connection
      const before = dog.renewals;
      for (const until = Date.now() + 10_000; dog.renewals <= before && Date.now() < until; ) await sleep(25);
      expect(dog.renewals).toBeGreaterThan(before);
      expect(seen).toEqual(['reconnecting', 'reconnected']);
      expect(await fx.raw.hget('orders', owner(1))).toBe('1');
      expect(await fx.raw.pttl('orders')).toBeGreaterThan(0);
    } finally {
      unwatch();
    }
  });
});

describe('fixed lease', () => {
  it('is never extended and ends as "expired" when the lease runs out', async () => {
    const startedAt = Date.now();
    const { dog, events } = await hold('fixed', 500);
    const end = await dog.ended;
    expect(end.type).toBe('expired');
    expect(end.at - startedAt).toBeGreaterThanOrEqual(400);
    expect(end.at - startedAt).toBeLessThan(5000); // the lease's end, however late the timer ran
    expect(events.filter((e) => e.type === 'renewed')).toEqual([]);
  });

  it('calibrates its deadline by the fx.server PTTL when someone shortens the lease', async () => {
    const { dog } = await hold('fixed', 10_000);
    const shortenedAt = Date.now();
    // Outlives the first check (at 1 s) by 1.5 s, however late a busy machine runs it: the check
    // must see the new PTTL and count down to it.
    await fx.raw.pexpire('orders', 2500);
    const end = await dog.ended;
    expect(end.type).toBe('expired'); // counted down to the new expiry, not found missing later
    expect(end.at - shortenedAt).toBeGreaterThan(2300);
    expect(end.at - shortenedAt).toBeLessThan(8000); // the new 2.5 s, not the old 10 s
  });

  it('notices a force-unlock within the check period', async () => {
    const { dog } = await hold('fixed', 10_000);
    await sleep(100);
    const deletedAt = Date.now();
    await fx.raw.del('orders');
    const end = await dog.ended;
    expect(end).toMatchObject({ type: 'lost', reason: 'gone', holders: [] });
    expect(end.at - deletedAt).toBeLessThan(8000); // the 1 s check, not the 10 s lease's end
  });

  it('a check that finds the key gone when the lease was due to end calls it expired, not lost', async () => {
    // The server expired the key a little before our deadline (its expiry stamped from a clock it
    // cached earlier in its turn), and a check runs in those last ms: it finds the key gone.
    const req = { key: 'orders', owner: owner(1), leaseMs: 100 };
    expect((await rlock.tryAcquire(fx.env, req)).acquired).toBe(true);
    while ((await fx.raw.exists('orders')) === 1) await sleep(10);
    const deadline = Date.now() + 30;
    const dog = startWatchdog({ env: fx.env, protocol: rlock, req, mode: 'fixed', leaseStartedAt: deadline - 100, checkEveryMs: 1 });
    running.push(dog);
    expect((await dog.ended).type).toBe('expired');
  });
});
