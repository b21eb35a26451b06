import { randomBytes, randomUUID } from 'node:crypto';
import Redlock from 'redlock';
import { beforeEach, describe, expect, it } from 'vitest';
import { suffixName } from '../../src/core/names.js';
import { run } from '../../src/main.js';
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
beforeEach(() => {
  env = tempStateEnv({ REDIS_URL: fx.server.url });
});

const req = (key: string, n: number, leaseMs = 30_000) => ({ key, owner: owner(n), leaseMs });
/** 0xff 0xfe are not UTF-8: SCAN must hand the name back byte for byte. */
const BINARY = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(':lock')]);

/** Locks of every kind with their companion keys, application data and Redisson's latch keys. */
async function mixedKeyspace(): Promise<string[]> {
  await hashLock('reentrant').tryAcquire(fx.env, req('orders', 1));
  await hashLock('fenced').tryAcquire(fx.env, req('pay', 2)); // + redisson_lock_token:{pay}
  const fair = fairLock();
  await fair.tryAcquire(fx.env, req('fair', 1));
  await fair.queuedAttempt(fx.env, req('fair', 2), 60_000); // + queue and deadline keys
  await readLock().tryAcquire(fx.env, req('rw', 1)); // + {rw}:<holder>:rwlock_timeout:1
  await readLock().tryAcquire(fx.env, req('rw', 2));
  await writeLock().tryAcquire(fx.env, req('w', 3));
  await tokenLock.tryAcquire(fx.env, { key: 'tok', owner: newOwner(tokenLock), leaseMs: 30_000 });
  await fx.raw.set('sem', '3');
  await fx.raw.set('pes', '1');
  await fx.raw.zadd(suffixName('pes', 'timeout'), Date.now() + 60_000, randomBytes(16));
  await fx.raw.zadd('semaphore:jobs', Date.now(), randomUUID());
  await fx.raw.set(BINARY, randomBytes(16).toString('hex'), 'PX', 30_000);
  await new Redlock([fx.raw], { retryCount: 0 }).acquire(['nr'], 30_000); // node-redlock itself
  // Not locks: application data, and the transient unlock latch Redisson writes while unlocking.
  await fx.raw.hset('user:1', 'name', 'ada');
  await fx.raw.set('cache:home', '<html>');
  await fx.raw.rpush('jobs', 'a', 'b');
  await fx.raw.set(`redisson_unlock_latch:{orders}:${randomBytes(16).toString('hex')}`, '1', 'PX', 30_000);
  return ['\\xff\\xfe:lock', 'fair', 'nr', 'orders', 'pay', 'pes', 'rw', 'sem', 'semaphore:jobs', 'tok', 'w'];
}

const lsJson = async (...args: string[]) => {
  const r = await runCli(['ls', ...args, '--json'], env);
  const views = JSON.parse(r.stdout) as { key: string; kind: string; keyHex?: string }[];
  return { ...r, views };
};

describe('ls', () => {
  it('lists every lock exactly once: no companions, latches or application data', async () => {
    const locks = await mixedKeyspace();
    const { code, views, stderr } = await lsJson();
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(views.map((v) => v.key).sort()).toEqual(locks);
    expect(Object.fromEntries(views.map((v) => [v.key, v.kind]))).toEqual({
      '\\xff\\xfe:lock': 'token',
      fair: 'fair',
      nr: 'token',
      orders: 'reentrant',
      pay: 'fenced',
      pes: 'expirable-semaphore',
      rw: 'rw',
      sem: 'semaphore',
      'semaphore:jobs': 'rs-semaphore',
      tok: 'token',
      w: 'rw',
    });
    expect(views.find((v) => v.key.startsWith('\\x'))!.keyHex).toBe(BINARY.toString('hex'));
  });

  it('prints a table sorted by key, nothing cut when piped', async () => {
    await mixedKeyspace();
    const r = await runCli(['ls'], env);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KEY\s+KIND\s+HOLDER\s+TTL\s+WAITING\s+WARN$/);
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(['KEY', '"\\xff\\xfe:lock"', 'fair', 'nr', 'orders', 'pay', 'pes', 'rw', 'sem', 'semaphore:jobs', 'tok', 'w']);
    expect(lines.find((l) => l.startsWith('fair'))).toMatch(/^fair\s+fair\s+00000000…:1\s+\d+\.\d s\s+1 queued\s+-$/);
    expect(lines.find((l) => l.startsWith('rw '))).toMatch(/^rw\s+rw:read\s+2 readers\s/);
    expect(lines.find((l) => l.startsWith('w '))).toMatch(/^w\s+rw:write\s+00000000…:1 \(w\)\s/);
    expect(lines.find((l) => l.startsWith('sem '))).toMatch(/^sem\s+semaphore\s+3 free\s+no TTL\s/);
    expect(lines.find((l) => l.startsWith('tok'))).toMatch(/^tok\s+token\s+[0-9a-f]{8}… \(node-redlock\)\s/);
  });

  it('on a terminal too narrow for a key with a control byte, the key is cut beside its escape, never inside it', async () => {
    await hashLock('reentrant').tryAcquire(fx.env, req('orders:\u001b]0;pwned\u0007:eu-west-1:customer-4242:lock', 1));
    const wholeEscape = /\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|[nrt\\"])/g;
    let cut = 0;
    for (let columns = 40; columns <= 80; columns++) {
      let text = '';
      const stdout = { isTTY: true, columns, write: (t: string) => ((text += t), true) };
      expect(await run(['ls'], { stdout, stderr: { write: () => true, isTTY: false }, env })).toBe(0);
      const keyCell = text.split('\n')[1]!.replace(/\u001b\[[0-9;]*m/g, '').split(/\s{2,}/)[0]!;
      if (keyCell.includes('…')) cut++;
      // Whole escapes taken out, no backslash is left over: none was split into `\x1…`.
      expect(keyCell.replace(wholeEscape, ''), `${columns} columns: ${keyCell}`).not.toContain('\\');
    }
    expect(cut).toBeGreaterThan(20);
  });

  it('a pattern picks keys by name; companions that match it are still not listed', async () => {
    await mixedKeyspace();
    expect((await lsJson('*fair*')).views.map((v) => v.key)).toEqual(['fair']);
    expect((await lsJson('o*')).views.map((v) => v.key)).toEqual(['orders']);
  });

  it('--kind keeps only those kinds; not-a-lock lists application data', async () => {
    await mixedKeyspace();
    expect((await lsJson('--kind', 'fair,rw')).views.map((v) => v.key).sort()).toEqual(['fair', 'rw', 'w']);
    expect((await lsJson('--kind', 'read')).views.map((v) => v.key).sort()).toEqual(['rw', 'w']);
    expect((await lsJson('--kind', 'not-a-lock')).views.map((v) => v.key).sort()).toEqual(['cache:home', 'jobs', 'user:1']);
    const bad = await runCli(['ls', '--kind', 'mutex'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^redlock-cli: unknown kind "mutex" \(Did you mean token\?\): use one of reentrant, /);
  });

  it('--limit stops after n locks and says so', async () => {
    await mixedKeyspace();
    const r = await lsJson('--limit', '3', '--scan-count', '2');
    expect(r.code).toBe(0);
    expect(r.views).toHaveLength(3);
    expect(r.stderr).toBe('stopped after 3 locks (--limit 3)\n');
    expect((await runCli(['ls', '--limit', '0'], env)).code).toBe(2);
  });

  it('a pattern that matches nothing exits 0 and says so on stderr', async () => {
    await mixedKeyspace();
    for (const [args, stdout] of [[['nothing*'], ''], [['nothing*', '--json'], '[]\n']] as const) {
      const r = await runCli(['ls', ...args], env);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, stdout, 'no locks match nothing*\n']);
    }
  });

  it('--watch without a terminal refuses in one line and points to --json', async () => {
    const r = await runCli(['ls', '--watch'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('redlock-cli: ls --watch draws a live view and needs a terminal: use ls --json for the same data as JSON (run it again to poll)\n');
  });

  it('locks deleted while the scan runs are left out, not listed as missing', async () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `l${i}`);
    const write = fx.raw.pipeline();
    for (const key of keys) write.hset(key, owner(1), '1').pexpire(key, 30_000);
    await write.exec();
    // Another client deletes every lock, a hundred at a time, while ls walks the keyspace.
    const deleting = (async () => {
      for (let i = 0; i < keys.length; i += 100) await fx.raw.del(...keys.slice(i, i + 100));
    })();
    const r = await lsJson('--scan-count', '50');
    await deleting;
    expect(r.code).toBe(0);
    expect(r.views.every((v) => v.kind === 'reentrant')).toBe(true);
    expect(r.views.length).toBeLessThan(keys.length);
  });
});
