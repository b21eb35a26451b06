import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fairTimeoutKey, rwTimeoutPrefix, suffixName } from '../../src/core/names.js';
import { fairLock } from '../../src/locks/fair.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { readLock, writeLock } from '../../src/locks/rw.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';
import { dumpAll, sideEffects } from '../helpers/read-only.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { watchCommands } from '../helpers/monitor.js';

// issue 3: "no command here may write to Redis, ever". MONITOR shows every command ls and
// doctor send and every command their scripts run; Redis's COMMAND INFO flags say which write.

const fx = useLockServer();
const req = (key: string, n: number, leaseMs = 30_000) => ({ key, owner: owner(n), leaseMs });

/** Locks of every kind, every problem doctor reports, application data and companions. */
async function everything(): Promise<void> {
  await hashLock('fenced').tryAcquire(fx.env, req('pay', 1));
  await fairLock().tryAcquire(fx.env, req('fair', 1));
  await fairLock().queuedAttempt(fx.env, req('fair', 2), 60_000);
  await fx.raw.zadd(fairTimeoutKey('fair'), Date.now() - 1000, owner(2));
  await readLock().tryAcquire(fx.env, req('rw', 1));
  await readLock().tryAcquire(fx.env, req('rw', 2, 50));
  await writeLock().tryAcquire(fx.env, req('w', 3));
  await fx.raw.set(`${rwTimeoutPrefix('gone', owner(4))}:1`, '1', 'PX', 30_000);
  await fx.raw.hset('stuck', owner(5), '150');
  await fx.raw.set('pes', '1');
  await fx.raw.zadd(suffixName('pes', 'timeout'), Date.now() - 500, randomBytes(16));
  await fx.raw.zadd('semaphore:jobs', Date.now(), randomUUID());
  await fx.raw.hset('cart:lock', 'items', '3');
  await fx.raw.set(Buffer.from([0xff, 0x6c, 0x6f, 0x63, 0x6b]), 'x');
  await new Promise((r) => setTimeout(r, 100)); // reader 2's hold expires: a zombie
}

/** Every key's DUMP: equal before and after means nothing changed. */
describe('ls and doctor are read-only', () => {
  it('MONITOR sees no write or publish from ls, ls --json, ls --kind not-a-lock, doctor and doctor --renewals', async () => {
    await everything();
    const before = await dumpAll(fx.raw);
    const monitor = await watchCommands(fx.server);
    const env = tempStateEnv({ REDIS_URL: fx.server.url });
    const codes = [
      (await runCli(['ls'], env)).code,
      (await runCli(['ls', '--json'], env)).code,
      (await runCli(['ls', '--kind', 'not-a-lock'], env)).code,
      (await runCli(['doctor'], env)).code,
      (await runCli(['doctor', '--renewals', '200ms'], env)).code,
    ];
    await fx.raw.ping(); // MONITOR lines of the runs above arrive before this PING's reply
    await new Promise((r) => setTimeout(r, 50));
    monitor.close();
    const seen = monitor.seen.map((c) => c.args);

    expect(codes).toEqual([0, 0, 0, 6, 6]);
    const ours = seen.filter((a) => !/^(ping|monitor)$/i.test(a[0]!));
    expect(ours.some((a) => /^scan$/i.test(a[0]!))).toBe(true);
    expect(await sideEffects(fx.raw, ours)).toEqual([]);
    expect(await dumpAll(fx.raw)).toEqual(before);
  });
});
