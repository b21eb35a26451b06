import { PassThrough } from 'node:stream';
import { run } from '../../src/main.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { useRedisServer } from '../helpers/fixture.js';
import { recordChannel } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const fx = useRedisServer({ flushEachTest: true });
let env: Record<string, string | undefined>;
beforeEach(() => {
  env = tempStateEnv({ REDIS_URL: fx.server.url });
});

const OWNER_A = '11111111-1111-4111-8111-111111111111:1';
const OWNER_B = '22222222-2222-4222-8222-222222222222:7';

describe('acquire', () => {
  it('takes the lock with the default 30 s lease and prints the owner to reuse', async () => {
    const r = await runCli(['acquire', 'orders', '--owner', OWNER_A], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`acquired "orders" (reentrant) as ${OWNER_A}, lease 30.0 s\n`);
    expect(r.stderr).toContain('release it with: redlock-cli release orders');
    expect(await fx.raw.hgetall('orders')).toEqual({ [OWNER_A]: '1' });
    expect(await fx.raw.pttl('orders')).toBeGreaterThan(29_000);
  });

  it('--json gives acquired, key, kind, owner, leaseMs (and token for fenced)', async () => {
    const r = await runCli(['acquire', 'f', '--kind', 'fenced', '--lease', '5s', '--owner', OWNER_A, '--json'], env);
    expect(JSON.parse(r.stdout)).toEqual({ acquired: true, key: 'f', kind: 'fenced', owner: OWNER_A, leaseMs: 5000, count: 1, token: 1 });
  });

  it('exits 5 naming the holder and its TTL when held', async () => {
    await runCli(['acquire', 'orders', '--owner', OWNER_A, '--lease', '20s'], env);
    const r = await runCli(['acquire', 'orders', '--owner', OWNER_B], env);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^not acquired: "orders" is held by ${OWNER_A} for another (19|20)\\.\\d s\\n$`));
  });

  it('--wait waits for the holder to let go', async () => {
    await runCli(['acquire', 'orders', '--owner', OWNER_A, '--lease', '300ms'], env);
    const started = Date.now();
    const r = await runCli(['acquire', 'orders', '--owner', OWNER_B, '--wait', '3s'], env);
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('release and renew', () => {
  it('release <key> finds the remembered owner; a second release says it is not locked', async () => {
    await runCli(['acquire', 'orders'], env);
    const r = await runCli(['release', 'orders'], env);
    expect(r).toMatchObject({ code: 0, stdout: 'released "orders"\n' });
    expect(await fx.raw.exists('orders')).toBe(0);
    const again = await runCli(['release', 'orders', '--owner', OWNER_A], env);
    expect(again.code).toBe(4);
    expect(again.stderr).toBe('redlock-cli: "orders" is not locked: nobody holds it (nothing to release)\n');
  });

  it('release --kind other than the one acquired here says which kind it was taken as, and changes nothing', async () => {
    await runCli(['acquire', 'orders'], env);
    const r = await runCli(['release', 'orders', '--kind', 'fair'], env);
    expect(r).toMatchObject({ code: 2, stderr: 'redlock-cli: "orders" was acquired here as reentrant, not fair: pass --kind reentrant or leave --kind out\n' });
    expect(await fx.raw.exists('orders')).toBe(1);
  });

  it('refuses to release for a non-owner, says who holds it, and changes nothing', async () => {
    await fx.raw.hset('orders', OWNER_B, '1');
    await fx.raw.pexpire('orders', 10_000);
    const r = await runCli(['release', 'orders', '--owner', OWNER_A], env);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`does not hold it; "orders" is held by ${OWNER_B} for another`));
    expect(await fx.raw.hgetall('orders')).toEqual({ [OWNER_B]: '1' });
  });

  it('says when a remembered lock expired', async () => {
    await runCli(['acquire', 'orders', '--lease', '100ms'], env);
    await new Promise((r) => setTimeout(r, 200));
    const r = await runCli(['release', 'orders'], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/its lease ran out \d+ ms ago/);
  });

  it('--all-holds releases every re-entrant hold', async () => {
    for (let i = 0; i < 3; i++) await runCli(['acquire', 'orders', '--owner', OWNER_A], env);
    expect(await fx.raw.hget('orders', OWNER_A)).toBe('3');
    const one = await runCli(['release', 'orders', '--owner', OWNER_A], env);
    expect(one.stdout).toContain('released one hold');
    const all = await runCli(['release', 'orders', '--owner', OWNER_A, '--all-holds'], env);
    expect(all).toMatchObject({ code: 0, stdout: 'released "orders" (2 holds)\n' });
    expect(await fx.raw.exists('orders')).toBe(0);
  });

  it('asks for --owner when several owners are remembered', async () => {
    await runCli(['acquire', 'r', '--kind', 'fenced', '--owner', OWNER_A], env);
    await runCli(['acquire', 'r', '--kind', 'fenced', '--owner', OWNER_A], env);
    await fx.raw.del('r');
    await runCli(['acquire', 'r', '--owner', OWNER_B], env);
    const r = await runCli(['release', 'r'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/2 owners of "r" remembered .*: pass --owner/);
  });

  it('renew extends a held lock and refuses a lost one', async () => {
    await runCli(['acquire', 'orders', '--lease', '1s'], env);
    const r = await runCli(['renew', 'orders', '--lease', '20s'], env);
    expect(r).toMatchObject({ code: 0, stdout: 'renewed "orders": lease 20.0 s from now\n' });
    expect(await fx.raw.pttl('orders')).toBeGreaterThan(19_000);
    await fx.raw.del('orders');
    expect((await runCli(['renew', 'orders', '--lease', '20s'], env)).code).toBe(5);
    expect((await runCli(['renew', 'orders', '--owner', OWNER_B], env)).code).toBe(2); // no lease remembered for B
  });
});

describe('force-unlock', () => {
  it('requires --yes without a terminal and changes nothing', async () => {
    await fx.raw.hset('orders', OWNER_B, '1');
    const r = await runCli(['force-unlock', 'orders'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('redlock-cli: force-unlock deletes a lock you may not own: pass --yes to confirm (there is no terminal to ask on)\n');
    expect(await fx.raw.exists('orders')).toBe(1);
  });

  it.each([
    ['y', 0, 0],
    ['n', 5, 1],
  ])('on a terminal it asks first; answering %j exits %d', async (answer, code, left) => {
    await fx.raw.hset('orders', OWNER_B, '1');
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let stderr = '';
    const pending = run(['force-unlock', 'orders'], {
      stdout: { write: () => true },
      stderr: { write: (t: string) => (stderr += t) },
      stdin,
      env,
    });
    // The prompt comes after a round trip to Redis: wait for it, however busy the machine is.
    await vi.waitFor(() => expect(stderr).toContain(`"orders" is held by ${OWNER_B} with no TTL: it will never expire on its own. Force-unlock it? [y/N] `), { timeout: 10_000, interval: 20 });
    stdin.write(`${answer}\n`);
    expect(await pending).toBe(code);
    expect(await fx.raw.exists('orders')).toBe(left);
  });

  it('deletes with --yes and wakes a waiting acquire', async () => {
    await fx.raw.hset('orders', OWNER_B, '1');
    await fx.raw.pexpire('orders', 20_000);
    const waiting = runCli(['acquire', 'orders', '--owner', OWNER_A, '--wait', '5s'], env);
    // The acquire is waiting once it listens on the lock's channel (a server-side fact).
    await vi.waitFor(async () => expect(await fx.raw.pubsub('NUMSUB', 'redisson_lock__channel:{orders}')).toEqual(['redisson_lock__channel:{orders}', 1]), { timeout: 10_000, interval: 20 });
    const at = Date.now();
    const r = await runCli(['force-unlock', 'orders', '--yes'], env);
    expect(r).toMatchObject({ code: 0, stdout: 'force-unlocked "orders" (reentrant); waiters were notified\n' });
    // Woken, not timed out: the lease had 20 s left and the waiter gives up after 5 s.
    expect((await waiting).code).toBe(0);
    expect(Date.now() - at).toBeLessThan(4_500);
    expect(await fx.raw.hgetall('orders')).toEqual({ [OWNER_A]: '1' });
  });

  it('recognises the kind from the data and wakes that kind\'s waiters', async () => {
    const rec = await recordChannel(fx.server, 'redisson_*');
    await runCli(['acquire', 'f', '--kind', 'fenced', '--owner', OWNER_A], env);
    await runCli(['acquire', 'w', '--kind', 'write', '--owner', OWNER_A], env);
    await runCli(['acquire', 't', '--kind', 'token'], env);
    await fx.raw.hset('q', OWNER_A, '1');
    await fx.raw.rpush('redisson_lock_queue:{q}', OWNER_B);
    await fx.raw.zadd('redisson_lock_timeout:{q}', Date.now() + 60_000, OWNER_B);
    const kinds: string[] = [];
    for (const key of ['f', 'w', 't', 'q']) {
      const r = await runCli(['force-unlock', key, '--yes', '--json'], env);
      expect(r.code).toBe(0);
      kinds.push(JSON.parse(r.stdout).kind);
      expect(await fx.raw.exists(key)).toBe(0);
    }
    expect(kinds).toEqual(['fenced', 'write', 'token', 'fair']);
    await new Promise((r) => setTimeout(r, 50));
    rec.close();
    expect(rec.messages.map((m) => [m.channel, m.message])).toEqual([
      ['redisson_lock__channel:{f}', '0'],
      ['redisson_rwlock:{w}', '1'],
      [`redisson_lock__channel:{q}:${OWNER_B}`, '0'],
    ]);
    // The fencing counter survives a force-unlock: tokens never go back.
    expect(await fx.raw.get('redisson_lock_token:{f}')).toBe('1');
  });

  it('exits 4 for a missing key and 2 for a non-lock key', async () => {
    expect((await runCli(['force-unlock', 'nope', '--yes'], env)).code).toBe(4);
    await fx.raw.rpush('jobs', 'a');
    const r = await runCli(['force-unlock', 'jobs', '--yes'], env);
    expect(r.code).toBe(2);
    expect(await fx.raw.llen('jobs')).toBe(1);
  });
});

describe('bad input: one line, documented exit code, nothing changed in Redis', () => {
  it.each([
    [['acquire', 'k', '--kind', 'mutex'], 2, /unknown lock kind "mutex" \(Did you mean token\?\)/],
    [['acquire', 'k', '--lease', '5'], 2, /invalid --lease duration "5"/],
    [['acquire', 'k', '--wait', 'soon'], 2, /invalid --wait duration "soon"/],
    [['acquire', 'k', '--owner', 'bob'], 2, /invalid owner "bob"/],
    [['acquire'], 2, /missing required argument 'key'/],
    [['aquire', 'k'], 2, /Did you mean acquire\?/],
  ])('%j exits %d', async (argv, code, message) => {
    const r = await runCli(argv, env);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(await fx.raw.dbsize()).toBe(0);
  });

  it('a list under --kind reentrant is refused untouched', async () => {
    await fx.raw.rpush('jobs', 'a', 'b');
    const r = await runCli(['acquire', 'jobs'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('redlock-cli: "jobs" holds a list that is not a lock: nothing was changed (see redlock-cli inspect jobs)\n');
    expect(await fx.raw.lrange('jobs', 0, -1)).toEqual(['a', 'b']);
    expect(await fx.raw.pttl('jobs')).toBe(-1);
  });

  it('an unreachable server exits 3 naming host:port, never the password', async () => {
    const r = await runCli(['acquire', 'k', '-u', 'redis://:hunter2@127.0.0.1:1'], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('redlock-cli: cannot connect to Redis at 127.0.0.1:1: connection refused (is redis-server running there?)\n');
  });
});

describe('authentication', () => {
  let secured: RedisServer;
  beforeAll(async () => {
    secured = await startRedis({ password: 'right-pass' });
  });
  afterAll(async () => {
    await secured?.stop();
  });

  it('a wrong password exits 3 without printing it', async () => {
    const r = await runCli(['acquire', 'k', '-u', `redis://:wrong-pass@127.0.0.1:${secured.port}`], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`redlock-cli: authentication failed at 127.0.0.1:${secured.port}: wrong user or password (set them in the URL, redis://user:password@host:port)\n`);
    expect(r.stderr + r.stdout).not.toContain('wrong-pass');
  });

  it('the right password in the URL works', async () => {
    const r = await runCli(['acquire', 'k', '-u', secured.url, '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).acquired).toBe(true);
  });
});
