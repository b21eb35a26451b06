import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/doctor.js';
import { fairTimeoutKey, fairWaiterChannel, rwTimeoutPrefix } from '../../src/core/names.js';
import { fairLock } from '../../src/locks/fair.js';
import { hashLock } from '../../src/locks/hash-lock.js';
import { newOwner } from '../../src/locks/owners.js';
import { readLock, writeLock } from '../../src/locks/rw.js';
import { tokenLock } from '../../src/locks/token.js';
import { useLockServer } from '../helpers/fixture.js';
import { owner } from '../helpers/lock-env.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const fx = useLockServer();
let env: Record<string, string | undefined>;
const waiters: (() => Promise<void>)[] = [];
beforeEach(() => {
  env = tempStateEnv({ REDIS_URL: fx.server.url });
});
afterEach(async () => {
  await Promise.all(waiters.splice(0).map((stop) => stop()));
});

const req = (key: string, n: number, leaseMs = 30_000) => ({ key, owner: owner(n), leaseMs });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cli = () => `redis-cli -h 127.0.0.1 -p ${fx.server.port}`;

async function doctor(...args: string[]) {
  const r = await runCli(['doctor', ...args, '--json'], env);
  return { ...r, findings: JSON.parse(r.stdout || '[]') as Finding[] };
}

/** A fair waiter that is alive: queued, and listening on its own wake-up channel like Redisson's. */
async function liveWaiter(key: string, n: number): Promise<void> {
  const stop = new AbortController();
  const waiting = fairLock().acquire(fx.env, req(key, n), { waitMs: 60_000, signal: stop.signal }).catch(() => undefined);
  waiters.push(async () => (stop.abort(), void (await waiting)));
  for (let i = 0; i < 100; i++) {
    const [, listeners] = (await fx.raw.call('PUBSUB', 'NUMSUB', fairWaiterChannel(key, owner(n)))) as [string, number];
    if (listeners === 1) return;
    await sleep(20);
  }
  throw new Error('the waiter never subscribed');
}

/** Pastes a printed fix into a shell, as a user would (bash: binary names use $'\xNN'). */
async function runFix(fix: string): Promise<void> {
  if (fix.startsWith('redlock-cli ')) {
    // Our own commands run in-process; their words are plain (owners and names need no quoting here).
    const r = await runCli(fix.split(' ').slice(1), env);
    expect(r.code, r.stderr).toBe(0);
    return;
  }
  await promisify(execFile)('bash', ['-c', fix]);
}

/** Healthy locks of every kind: doctor must find nothing in them. */
async function healthyLocks(): Promise<void> {
  await hashLock('reentrant').tryAcquire(fx.env, req('orders', 1));
  await hashLock('fenced').tryAcquire(fx.env, req('pay', 2));
  await fairLock().tryAcquire(fx.env, req('fair', 1));
  await liveWaiter('fair', 2);
  await readLock().tryAcquire(fx.env, req('rw', 1));
  await writeLock().tryAcquire(fx.env, req('w', 3));
  await tokenLock.tryAcquire(fx.env, { key: 'tok', owner: newOwner(tokenLock), leaseMs: 30_000 });
  await fx.raw.set('sem', '3');
  await fx.raw.hset('user:1', 'name', 'ada'); // application data under a name that is not lock-like
}

describe('doctor', () => {
  it('exits 0 on healthy locks and says what it looked at', async () => {
    await healthyLocks();
    const r = await runCli(['doctor'], env);
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toMatch(/^no problems found in 7 locks among 1\d keys matching \*\n$/);
  });

  it('a pattern that matches nothing exits 0 and says so', async () => {
    await healthyLocks();
    const r = await runCli(['doctor', 'nothing*'], env);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', 'no keys match nothing*; no server problems found\n']);
  });

  it('locks without TTL are errors; the printed PEXPIRE gives them a lease; a token-shaped string is only a note', async () => {
    await fx.raw.hset('stuck', owner(1), '1'); // acquired, then the EXPIRE never ran (scenario S2)
    await fx.raw.set('tok:nottl', randomBytes(16).toString('hex')); // an MD5 looks the same: not a lock without TTL
    const { code, findings, stderr } = await doctor();
    expect(code).toBe(6);
    expect(findings.map((f) => [f.severity, f.code, f.key, f.fix])).toEqual([['error', 'no-ttl', 'stuck', `${cli()} PEXPIRE stuck 30000`]]);
    expect(findings[0]!.message).toMatch(/^no TTL: will never expire/);
    expect(stderr).toContain('note: 1 string without TTL has the form of a token lock (tok:nottl): read as application data');
    for (const f of findings) await runFix(f.fix);
    expect(await fx.raw.pttl('stuck')).toBeGreaterThan(29_000);
    expect((await doctor()).code).toBe(0);
  });

  it('a fair queue with a dead head: overdue waiters, removed by the printed script', async () => {
    const fair = fairLock({ threadWaitMs: 50 });
    await fair.tryAcquire(fx.env, req('fair', 1, 100));
    await fair.queuedAttempt(fx.env, req('fair', 2), 0); // deadline: lease left + 50 ms; then it dies
    await fair.renew(fx.env, req('fair', 1)); // the holder's watchdog keeps it: the dead head goes overdue
    await liveWaiter('fair', 3);
    await sleep(250);
    const { findings } = await doctor();
    expect(findings.map((f) => [f.severity, f.code, f.key])).toEqual([['warning', 'overdue-waiter', 'fair']]);
    expect(findings[0]!.message).toContain(`waiter ${owner(2)} (next in line) overdue`);
    expect(findings[0]!.fix).toMatch(new RegExp(`^${cli()} EVAL '.*' 2 'redisson_lock_queue:\\{fair\\}' 'redisson_lock_timeout:\\{fair\\}' ${owner(2)}$`));
    await runFix(findings[0]!.fix);
    expect(await fx.raw.lrange('redisson_lock_queue:{fair}', 0, -1)).toEqual([owner(3)]);
    expect((await doctor()).code).toBe(0);
  });

  it('a fair queue head that no longer listens is gone before its deadline passes: removed by the printed script', async () => {
    await fairLock().tryAcquire(fx.env, req('fair', 1));
    await fairLock().queuedAttempt(fx.env, req('fair', 2), 60_000); // queued, then its client died
    await liveWaiter('fair', 3);
    const { findings } = await doctor();
    expect(findings.map((f) => [f.severity, f.code, f.key])).toEqual([['warning', 'silent-queue-head', 'fair']]);
    expect(findings[0]!.message).toMatch(new RegExp(`^the next waiter ${owner(2)} does not listen on its wake-up channel, .* the 1 waiter\\(s\\) behind it wait until its deadline in 1 m \\d\\d s`));
    await runFix(findings[0]!.fix);
    expect(await fx.raw.lrange('redisson_lock_queue:{fair}', 0, -1)).toEqual([owner(3)]);
    expect((await doctor()).code).toBe(0);
  });

  it('fair deadlines drifted far ahead of waiters x allowance', async () => {
    await fairLock().tryAcquire(fx.env, req('drift', 1));
    await liveWaiter('drift', 2);
    await fx.raw.zadd(fairTimeoutKey('drift'), Date.now() + 10 * 3_600_000, owner(2)); // pushed 10 h out (Redisson #1104)
    const { findings } = await doctor('--fair-wait', '5m');
    expect(findings.map((f) => [f.code, f.key, f.fix])).toEqual([
      ['queue-drift', 'drift', `${cli()} DEL 'redisson_lock_queue:{drift}' 'redisson_lock_timeout:{drift}'`],
    ]);
    expect(findings[0]!.message).toMatch(/^the last of 1 waiter\(s\) has a deadline in 9 h 59 m, more than 1 × 5 m 00 s allowance/);
    expect((await doctor('--fair-wait', '11h')).code).toBe(0);
  });

  it('zombie readers and orphan read-hold keys, each with its fix', async () => {
    await readLock().tryAcquire(fx.env, req('rw', 1));
    await readLock().tryAcquire(fx.env, req('rw', 2, 50)); // its timeout key expires: a zombie
    await fx.raw.set(`${rwTimeoutPrefix('rw', owner(1))}:2`, '1', 'PX', 30_000); // past owner 1's count
    await fx.raw.set(`${rwTimeoutPrefix('rw', owner(9))}:1`, '1', 'PX', 30_000); // a holder named nowhere
    await fx.raw.set(`${rwTimeoutPrefix('gone', owner(4))}:1`, '1', 'PX', 30_000); // its lock is gone
    await sleep(100);
    const { findings } = await doctor();
    const byCode = Object.fromEntries(findings.map((f) => [`${f.code} ${f.key}`, f.fix]));
    expect(byCode).toEqual({
      'zombie-reader rw': `${cli()} HDEL rw ${owner(2)}`,
      'orphan-timeout-key rw': `${cli()} DEL '{rw}:${owner(1)}:rwlock_timeout:2'`,
      [`orphan-companion {rw}:${owner(9)}:rwlock_timeout:1`]: `${cli()} DEL '{rw}:${owner(9)}:rwlock_timeout:1'`,
      [`orphan-companion {gone}:${owner(4)}:rwlock_timeout:1`]: `${cli()} DEL '{gone}:${owner(4)}:rwlock_timeout:1'`,
    });
    for (const fix of Object.values(byCode)) await runFix(fix);
    expect((await doctor()).findings).toEqual([]);
  });

  it('a hold count above 100: the fix releases every hold of that owner with our own release', async () => {
    await fx.raw.hset('deep', owner(1), '150');
    await fx.raw.pexpire('deep', 30_000);
    const { findings } = await doctor();
    expect(findings.map((f) => [f.severity, f.code, f.key, f.fix])).toEqual([
      ['warning', 'huge-hold-count', 'deep', `redlock-cli release deep --kind reentrant --owner ${owner(1)} --all-holds`],
    ]);
    await runFix(findings[0]!.fix);
    expect(await fx.raw.exists('deep')).toBe(0);
  });

  it('lock-like names holding application data (scenario S16), and only those', async () => {
    await fx.raw.hset('cart:lock', 'items', '3');
    await fx.raw.rpush('jobs:mutex', 'a');
    await fx.raw.set('report-lock', 'running since 9:00');
    await fx.raw.hset('cart', 'items', '3'); // not lock-like: nobody's business
    const { findings } = await doctor();
    expect(findings.map((f) => [f.code, f.key, f.fix])).toEqual([
      ['app-data-on-lock-name', 'cart:lock', `${cli()} DEL cart:lock`],
      ['app-data-on-lock-name', 'jobs:mutex', `${cli()} DEL jobs:mutex`],
      ['app-data-on-lock-name', 'report-lock', `${cli()} DEL report-lock`],
    ]);
    expect(findings[0]!.message).toMatch(/^a lock-like name holding a hash of size 1 in no lock format: application data\. No lock/);
    expect(findings[2]!.message).toContain('hand-written lock set without an expiry');
  });

  it('prints each finding as severity, code, key, explanation and fix; --json is one array', async () => {
    await fx.raw.hset('stuck', owner(1), '1');
    const text = await runCli(['doctor'], env);
    expect(text.code).toBe(6);
    expect(text.stdout).toBe(
      // Piped, the explanation wraps at 80 columns (the width when there is no terminal), between words.
      `ERROR    no-ttl  stuck\n         no TTL: will never expire; if its holder dies it stays locked until\n         someone deletes it\n         fix: ${cli()} PEXPIRE stuck 30000\n         see: redlock-cli scenario show setnx-expire-crash\n`,
    );
    expect(text.stderr).toBe('1 problem (1 error, 0 warnings) in 1 lock among 1 key matching *\n');
    const { findings } = await doctor();
    expect(findings).toEqual([
      { severity: 'error', code: 'no-ttl', key: 'stuck', node: fx.server.url.slice('redis://'.length), message: expect.any(String), fix: `${cli()} PEXPIRE stuck 30000`, scenario: 'setnx-expire-crash' },
    ]);
  });

  it('an expired permit (raw 16-byte id) goes back to the semaphore through the printed script', async () => {
    const id = randomBytes(16);
    await fx.raw.set('pes', '0');
    await fx.raw.zadd('{pes}:timeout', Date.now() - 1000, id);
    const { findings } = await doctor();
    expect(findings.map((f) => [f.code, f.key])).toEqual([['expired-permit', 'pes']]);
    await runFix(findings[0]!.fix);
    expect([await fx.raw.get('pes'), await fx.raw.zcard('{pes}:timeout')]).toEqual(['1', 0]);
  });

  it('a binary key name: shown escaped, fixed through its exact bytes', async () => {
    const key = Buffer.from([0xff, 0x00, 0x27, 0x6c, 0x6f, 0x63, 0x6b]); // \xff \0 ' l o c k
    await fx.raw.hset(key, owner(1), '1');
    const { findings } = await doctor();
    expect(findings.map((f) => [f.code, f.key])).toEqual([['no-ttl', "\\xff\\x00'lock"]]);
    expect(findings[0]!.fix).toBe(`printf '%s\\n' 'PEXPIRE "\\xff\\x00\\x27lock" 30000' | ${cli()}`);
    await runFix(findings[0]!.fix);
    expect(await fx.raw.pttl(key)).toBeGreaterThan(29_000);
  });
});
