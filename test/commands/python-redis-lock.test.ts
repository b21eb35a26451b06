import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/doctor.js';
import type { LockView } from '../../src/core/lock-view.js';
import { useRedisServer } from '../helpers/fixture.js';
import { rawClient } from '../helpers/lock-env.js';
import { blockedClients, peerAcquire } from '../helpers/python-redis-lock-peer.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// python-redis-lock's keys as v4.0.1 writes them (src/redis_lock/__init__.py): inspect, ls and
// doctor know them, no TTL is its normal state, and force-unlock wakes its BLPOP waiters.

const fx = useRedisServer({ flushEachTest: true });
const cli = (argv: readonly string[]) => runCli(argv, tempStateEnv({ REDIS_URL: fx.server.url }));
const ID = 'Zm9vYmFyYmF6cXV4MTIzNDU2';
let waiterConn: Redis;
beforeEach(() => {
  waiterConn = rawClient(fx.server);
});
afterEach(() => waiterConn.disconnect());

describe('python-redis-lock in inspect, ls and doctor', () => {
  it('inspect: its library, its holder, no TTL as its normal state, and the note on the risk', async () => {
    await fx.raw.set('lock:report', ID);
    await fx.raw.set('lock:nightly', ID, 'EX', 60);
    const r = await cli(['inspect', 'lock:report']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'lock:report  token lock (python-redis-lock), no TTL\n' +
        `  held by   ${ID}\n` +
        "  note      no TTL, python-redis-lock's default (no expire= given): normal for it, but if its holder dies without releasing, it stays locked until someone force-unlocks it; expire= with auto_renewal=True bounds that\n",
    );
    const timed = await cli(['inspect', 'lock:nightly']);
    expect(timed.stdout).toMatch(
      /^lock:nightly {2}token lock \(python-redis-lock\), expires in \d+(\.\d)? s\n {2}held by {3}Zm9v\w+\n$/,
    );
  });

  it('ls lists both and their wake-up list nowhere; doctor has no finding, one note', async () => {
    await fx.raw.set('lock:report', ID);
    await fx.raw.set('lock:nightly', ID, 'EX', 60);
    await fx.raw.lpush('lock-signal:nightly', '1');
    await fx.raw.pexpire('lock-signal:nightly', 60_000);
    const ls = await cli(['ls', '--json']);
    const listed = JSON.parse(ls.stdout) as LockView[];
    expect(listed.map((v) => [v.key, v.kind, v.library]).sort()).toEqual([
      ['lock:nightly', 'token', 'python-redis-lock'],
      ['lock:report', 'token', 'python-redis-lock'],
    ]);
    const doctor = await cli(['doctor', '--json']);
    expect(doctor.code).toBe(0);
    expect(JSON.parse(doctor.stdout) as Finding[]).toEqual([]);
    const text = await cli(['doctor']);
    expect(text.stdout).not.toMatch(/ERROR|error/);
    expect(text.stderr).toContain(
      'note: 1 python-redis-lock lock has no TTL, its default (lock:report): normal while the holder runs, but one whose holder died stays locked until redlock-cli force-unlock <key> --yes',
    );
  });
});

describe('python-redis-lock through the lock commands', () => {
  it('force-unlock (no --kind: the key says which library) wakes its waiter blocked in BLPOP', async () => {
    await fx.raw.set('lock:report', ID);
    const waiter = peerAcquire(waiterConn, 'report', { timeoutS: 20 });
    await blockedClients(fx.raw);
    const r = await cli(['force-unlock', 'lock:report', '--yes']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('force-unlocked "lock:report" (python-redis-lock); waiters were notified\n');
    expect(await waiter.acquired).toBe(true);
    expect(waiter.stats.wakeUps).toBe(1);
    expect(await fx.raw.get('lock:report')).toBe(waiter.id);
  });

  it('acquire and release --kind python-redis-lock: its id form; our release wakes its waiter', async () => {
    const taken = await cli(['acquire', 'lock:report', '--kind', 'python-redis-lock', '--lease', '30s', '--json']);
    expect(taken.code).toBe(0);
    const value = await fx.raw.get('lock:report');
    expect(value).toMatch(/^[A-Za-z0-9+/]{24}$/);
    const waiter = peerAcquire(waiterConn, 'report', { timeoutS: 20 });
    await blockedClients(fx.raw);
    const released = await cli(['release', 'lock:report', '--kind', 'python-redis-lock', '--owner', value!]);
    expect(released.code).toBe(0);
    expect(await waiter.acquired).toBe(true);
    expect(waiter.stats.wakeUps).toBe(1);
  });

  it('a name without lock: is refused with one line and exit 2, nothing written', async () => {
    const r = await cli(['acquire', 'report', '--kind', 'python-redis-lock']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/python-redis-lock keys are lock:<name>, not "report"/);
    expect(await fx.raw.dbsize()).toBe(0);
  });
});
