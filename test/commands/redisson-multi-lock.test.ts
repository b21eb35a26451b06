import { describe, expect, it } from 'vitest';
import type { LockView } from '../../src/core/lock-view.js';
import { useRedisServer } from '../helpers/fixture.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Redisson's group multi-lock, getMultiLock(group, values), through the commands a user runs.
// The hash is written byte-exact as RedissonFasterMultiLock.java at redisson-3.52.0 writes it
// (tryLockInnerAsync: HSET <value> <owner>, HSET <value>:<owner>:expire_time <ms>, HINCRBY
// <value>:<owner>:lock_count 1, PEXPIRE <group> <lease>); values are Hash.hash128toBase64 of the
// encoded value, 22 base64 characters (docs/lock-formats.md, "Redisson's newer objects").

const fx = useRedisServer({ flushEachTest: true });
const env = tempStateEnv();
const cli = (argv: readonly string[]) => runCli(argv, { ...env, REDIS_URL: fx.server.url });
const GROUP = 'class_100';
const OWNER = '71b96ce8-2746-4c1e-9d3a-2f5b8c7e6a10:1';
const GONE = '0c2d4e6f-8a1b-4c3d-9e5f-7a8b9c0d1e2f:57';
const JACK = 'q3Jm0cXkZ9b1T4uV7wYtAg';
const MARY = 'Zx8+P2lKd0aRr/5mNc1e9Q';
const LAPSED = 'AbCdEfGhIjKlMnOpQrStUv';

async function serverMs(): Promise<number> {
  const [s, us] = await fx.raw.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Jack and Mary held by OWNER (Mary re-entered once), a third value whose other owner's lease lapsed. */
async function writeGroup(): Promise<void> {
  const now = await serverMs();
  await fx.raw.hset(GROUP, JACK, OWNER, `${JACK}:${OWNER}:expire_time`, String(now + 30_000), `${JACK}:${OWNER}:lock_count`, '1');
  await fx.raw.hset(GROUP, MARY, OWNER, `${MARY}:${OWNER}:expire_time`, String(now + 30_000), `${MARY}:${OWNER}:lock_count`, '2');
  await fx.raw.hset(GROUP, LAPSED, GONE, `${LAPSED}:${GONE}:expire_time`, String(now - 5_000), `${LAPSED}:${GONE}:lock_count`, '1');
  await fx.raw.pexpire(GROUP, 30_000);
}

describe("Redisson's group multi-lock in the commands", () => {
  it('inspect shows the group, each value held, its owner, holds and lease left', async () => {
    await writeGroup();
    const r = await cli(['inspect', GROUP]);
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/(expires in|lease left) ?[\d.]+ s/g, '$1 N s').replace(/ {2}[\d.]+ s\n/g, '  N s\n').replace(/lapsed [\d.]+ s/, 'lapsed N s')).toBe(
      'class_100  Redisson group multi-lock, expires in N s\n' +
        '  holder    71b96ce8-2746-4c1e-9d3a-2f5b8c7e6a10 thread 1, 2 values\n' +
        '  values    value (hashed)          holder                                          holds  lease left\n' +
        '            AbCdEfGhIjKlMnOpQrStUv  0c2d4e6f-8a1b-4c3d-9e5f-7a8b9c0d1e2f thread 57  1      lapsed N s ago\n' +
        '            Zx8+P2lKd0aRr/5mNc1e9Q  71b96ce8-2746-4c1e-9d3a-2f5b8c7e6a10 thread 1   2      N s\n' +
        '            q3Jm0cXkZ9b1T4uV7wYtAg  71b96ce8-2746-4c1e-9d3a-2f5b8c7e6a10 thread 1   1      N s\n' +
        '  waiters   0 subscribed to its channel\n' +
        '  note      1 of 3 values have passed their lease: Redisson treats them as free; the next lock of the group overwrites them\n' +
        "  note      Redisson stores each value as a 128-bit hash of its encoded form: the values' names cannot be read back\n",
    );
    const [view] = JSON.parse((await cli(['inspect', GROUP, '--json'])).stdout) as LockView[];
    expect(view).toMatchObject({ kind: 'multi-lock', type: 'hash', holders: [{ owner: OWNER, count: 2 }] });
    expect(view!.multiLockValues?.map((v) => [v.value, v.owner, v.count, v.leaseLeftMs! > 0])).toEqual([
      [LAPSED, GONE, 1, false],
      [MARY, OWNER, 2, true],
      [JACK, OWNER, 1, true],
    ]);
  });

  it('ls lists the group once as one lock and doctor calls its normal state normal', async () => {
    await writeGroup();
    const ls = await cli(['ls', '--json']);
    expect(ls.code).toBe(0);
    const views = JSON.parse(ls.stdout) as LockView[];
    expect(views.map((v) => [v.key, v.kind, v.warnings.filter((w) => w.severity !== 'info')])).toEqual([[GROUP, 'multi-lock', []]]);
    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(0);
    expect(doctor.stderr).toContain('no problems found in 1 lock');
  });

  it('doctor flags a group hash without TTL, as for every other Redisson lock', async () => {
    await writeGroup();
    await fx.raw.persist(GROUP);
    const doctor = await cli(['doctor', '--json']);
    expect(doctor.stdout).toContain('"code":"no-ttl"');
  });

  it("force-unlock deletes the group and wakes its waiters with RLock's unlock message on the group's channel", async () => {
    await writeGroup();
    // RedissonFasterMultiLock's waiters subscribe to prefixName('redisson_lock__channel', group) and wake on '0'.
    const waiter = fx.raw.duplicate();
    const heard: [string, string][] = [];
    waiter.on('message', (channel: string, message: string) => heard.push([channel, message]));
    await waiter.subscribe(`redisson_lock__channel:{${GROUP}}`);
    try {
      const forced = await cli(['force-unlock', GROUP, '--yes']);
      expect([forced.code, forced.stderr]).toEqual([0, '']);
      expect(forced.stdout).toContain(`force-unlocked "${GROUP}" (multi-lock)`);
      expect(await fx.raw.exists(GROUP)).toBe(0);
      await fx.raw.ping(); // the message reached the waiter's connection before this reply reached ours
      for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual([[`redisson_lock__channel:{${GROUP}}`, '0']]);
    } finally {
      waiter.disconnect();
    }
  });

  it('acquire --kind multi-lock --values takes values beside another owner; release frees ours and wakes waiters', async () => {
    await writeGroup();
    const FREE = 'd0d0d0d0d0d0d0d0d0d0dw';
    const refused = await cli(['acquire', GROUP, '--kind', 'multi-lock', '--values', `${FREE},${JACK}`, '--json']);
    expect(refused.code).toBe(5);
    expect(JSON.parse(refused.stdout)).toMatchObject({ acquired: false, holders: [{ owner: OWNER }] });
    expect(await fx.raw.hexists(GROUP, FREE)).toBe(0);

    // LAPSED's other owner is past its expiry: free to the next locker, as in Redisson.
    const taken = await cli(['acquire', GROUP, '--kind', 'multi-lock', '--values', `${FREE},${LAPSED}`, '--json']);
    expect([taken.code, taken.stderr]).toEqual([0, '']);
    const { owner } = JSON.parse(taken.stdout) as { owner: string };
    expect(await fx.raw.hmget(GROUP, FREE, LAPSED, JACK)).toEqual([owner, owner, OWNER]);

    const waiter = fx.raw.duplicate();
    const heard: string[] = [];
    waiter.on('message', (_channel: string, message: string) => heard.push(message));
    await waiter.subscribe(`redisson_lock__channel:{${GROUP}}`);
    try {
      // No --kind, no --owner: acquire remembered both; release acts on the values this owner holds.
      const released = await cli(['release', GROUP]);
      expect([released.code, released.stdout]).toEqual([0, `released "${GROUP}"\n`]);
      expect(await fx.raw.hmget(GROUP, FREE, LAPSED, JACK)).toEqual([null, null, OWNER]);
      await waiter.ping();
      expect(heard).toEqual(['0']);
    } finally {
      waiter.disconnect();
    }
  });

  it('hold sees its values as its own (the owner, not the fields), renews them and releases them', async () => {
    // A fixed lease is checked for ownership while held; the watchdog renews.
    const fixed = await cli(['hold', GROUP, '--kind', 'multi-lock', '--values', JACK, '--lease', '5s', '--for', '1500ms']);
    expect([fixed.code, fixed.stderr, fixed.stdout.includes('lost')]).toEqual([0, '', false]);
    expect(fixed.stdout).toMatch(/released "class_100" after .* \(--for elapsed\)/);
    const renewed = await cli(['hold', GROUP, '--kind', 'multi-lock', '--values', JACK, '--watchdog', '900ms', '--for', '1500ms']);
    expect([renewed.code, renewed.stderr]).toEqual([0, '']);
    expect(renewed.stdout).toMatch(/renewed "class_100"/);
    expect(await fx.raw.exists(GROUP)).toBe(0);
  });

  it('--values is refused without --kind multi-lock, and acquire --kind multi-lock needs it, before Redis is touched', async () => {
    const stray = await cli(['acquire', 'orders', '--values', 'a,b']);
    expect([stray.code, stray.stderr]).toEqual([2, expect.stringContaining('--values names a group multi-lock')]);
    const bare = await cli(['acquire', GROUP, '--kind', 'multi-lock']);
    expect([bare.code, bare.stderr]).toEqual([2, expect.stringContaining('--kind multi-lock needs --values')]);
    // Redisson never stores a value's own name: a field we wrote under one would be no value of its.
    const plain = await cli(['acquire', GROUP, '--kind', 'multi-lock', '--values', 'Jack_001']);
    expect([plain.code, plain.stderr]).toEqual([2, expect.stringContaining('"Jack_001" is not a stored value')]);
    expect(await fx.raw.dbsize()).toBe(0);
  });
});
