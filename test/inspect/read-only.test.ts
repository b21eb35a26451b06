import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fairTimeoutKey, suffixName } from '../../src/core/names.js';
import { fairLock } from '../../src/locks/fair.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { newOwner } from '../../src/locks/owners.js';
import { readLock, writeLock } from '../../src/locks/rw.js';
import { tokenLock } from '../../src/locks/token.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';
import { dumpAll, sideEffects } from '../helpers/read-only.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { watchCommands } from '../helpers/monitor.js';

// issue 3: "no command here may write to Redis, ever". MONITOR sees every command a client sends
// and every command a script runs (source "lua"); Redis's own COMMAND INFO flags say which write.

const fx = useLockServer();
const req = (key: string, n: number, leaseMs = 10_000) => ({ key, owner: owner(n), leaseMs });

/** One key of every kind inspect decodes, including the warning cases. */
async function buildEveryKind(): Promise<string[]> {
  await hashLock('reentrant').tryAcquire(fx.env, req('reentrant', 1));
  await hashLock('fenced').tryAcquire(fx.env, req('fenced', 1));
  const fair = fairLock({ threadWaitMs: 50 });
  await fair.tryAcquire(fx.env, req('fair', 1));
  await fair.queuedAttempt(fx.env, req('fair', 2), 0);
  await fx.raw.zadd(fairTimeoutKey('fair'), Date.now() - 1000, owner(2)); // overdue: a purge candidate
  await readLock().tryAcquire(fx.env, req('rw', 1));
  await readLock().tryAcquire(fx.env, req('rw', 2, 50));
  await writeLock().tryAcquire(fx.env, req('w', 3));
  await tokenLock.tryAcquire(fx.env, { key: 'token', owner: newOwner(tokenLock), leaseMs: 10_000 });
  await fx.raw.set('semaphore', '2');
  await fx.raw.set('pes', '1');
  await fx.raw.zadd(suffixName('pes', 'timeout'), Date.now() - 500, randomBytes(16));
  await fx.raw.zadd('semaphore:jobs', Date.now(), randomUUID());
  await fx.raw.hset('app-data', 'a', '1');
  await new Promise((r) => setTimeout(r, 100)); // the short read hold expires: a zombie reader
  return ['reentrant', 'fenced', 'fair', 'rw', 'w', 'token', 'semaphore', 'pes', 'semaphore:jobs', 'app-data', 'missing'];
}

describe('inspect is read-only', () => {
  it('MONITOR sees no write (or publish) from inspect, inside its script or outside, and the data is unchanged', async () => {
    const keys = await buildEveryKind();
    const before = await dumpAll(fx.raw);
    const monitor = await watchCommands(fx.server);
    const { seen } = monitor;
    const env = tempStateEnv({ REDIS_URL: fx.server.url });
    const text = await runCli(['inspect', ...keys], env);
    const json = await runCli(['inspect', ...keys, '--json'], env);
    await fx.raw.ping(); // MONITOR output for the runs above arrives before this PING's reply
    await new Promise((r) => setTimeout(r, 50));
    monitor.close();

    expect([text.code, json.code]).toEqual([4, 4]); // 'missing' does not exist
    expect(JSON.parse(json.stdout).map((v: { kind: string }) => v.kind)).toEqual([
      'reentrant', 'fenced', 'fair', 'rw', 'rw', 'token', 'semaphore', 'expirable-semaphore', 'rs-semaphore', 'not-a-lock', 'missing',
    ]);
    const ours = seen.filter((c) => !['ping', 'monitor'].includes(c.args[0]!.toLowerCase()));
    expect(ours.filter((c) => c.source === 'lua').length).toBeGreaterThan(50); // the script's own calls are visible
    expect(await sideEffects(fx.raw, ours.map((c) => c.args))).toEqual([]);
    const after = await dumpAll(fx.raw);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [key, dump] of before) expect(after.get(key), key).toBe(dump);
  });

  it('the judge itself: writes, publishes and replicated commands are flagged, reads and EVALSHA are not', async () => {
    const seen = [['SET', 'k', 'v'], ['PUBLISH', 'c', 'm'], ['SPUBLISH', 'c', 'm'], ['PEXPIRE', 'k', '10'], ['GET', 'k'], ['HGETALL', 'h'], ['EVALSHA', 'abc', '0'], ['PUBSUB', 'NUMSUB', 'c']];
    expect((await sideEffects(fx.raw, seen)).map((o) => o.split(' [')[0])).toEqual(['set k', 'publish c', 'spublish c', 'pexpire k']);
  });
});
