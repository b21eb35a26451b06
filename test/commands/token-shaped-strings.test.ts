import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/doctor.js';
import type { LockView } from '../../src/core/lock-view.js';
import { INTEGER_SHAPE, TOKEN_SHAPES } from '../core/token-shapes.js';
import { useRedisServer } from '../helpers/fixture.js';
import { dumpAndExpiryAll } from '../helpers/read-only.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Issue 24: application strings in a token lock's shape (a session UUID, an MD5, a salt) without
// TTL are data, not locks, in every command that reads them: inspect, its live view, ls, doctor.
// Only `force-unlock --kind token --yes` deletes one. The refusals of the other lock commands
// are rows of test/commands/bad-input-table.test.ts.

const fx = useRedisServer({ flushEachTest: true });
const cli = (argv: readonly string[]) => runCli(argv, tempStateEnv({ REDIS_URL: fx.server.url }));
const shaped = TOKEN_SHAPES.filter((s) => s.library !== undefined);

/** Every shaped string, without TTL under its own name and with one under `<name>:ttl`. */
async function arrangeShapes(): Promise<{ bare: string[]; timed: string[] }> {
  const now = Date.now();
  for (const s of shaped) {
    await fx.raw.set(s.key, s.value(now));
    await fx.raw.set(`${s.key}:ttl`, s.value(now), 'PX', 60_000);
  }
  return { bare: shaped.map((s) => s.key), timed: shaped.map((s) => `${s.key}:ttl`) };
}

describe('inspect, its live view and ls read a token-shaped string as a lock only with a TTL', () => {
  it('inspect --json and text: without TTL plain data with one note, with TTL a token lock of its library', async () => {
    const { bare, timed } = await arrangeShapes();
    const r = await cli(['inspect', ...bare, ...timed, '--json']);
    expect(r.code).toBe(0);
    const views = JSON.parse(r.stdout) as LockView[];
    for (const [i, s] of shaped.entries()) {
      const [without, withTtl] = [views[i]!, views[i + shaped.length]!];
      expect(without, s.shape).toMatchObject({ key: s.key, kind: 'not-a-lock', ttlMs: -1, holders: [] });
      expect(without.warnings.map((w) => [w.code, w.severity]), s.shape).toEqual([['token-without-expiry', 'info']]);
      expect(withTtl, s.shape).toMatchObject({ kind: 'token', library: s.library });
      expect(withTtl.warnings.map((w) => [w.code, w.severity]), s.shape).toEqual((s.notes ?? []).map((code) => [code, 'info']));
    }
    const text = await cli(['inspect', 'user:42:session']);
    expect(text.stdout).toBe(
      'user:42:session  not a lock: a string of 36 bytes, no TTL\n' +
        '  note      read as plain data, since every token library sets a TTL; it could be a token lock set without expiry (the value has the form of a spring token): --kind token reads it as one\n',
    );
    expect(text.stdout).not.toMatch(/error|token lock \(/);
  });

  it('inspect --watch --json shows the same as inspect', async () => {
    await arrangeShapes();
    const r = await cli(['inspect', 'file:abc:md5', 'file:abc:md5:ttl', '--watch', '--json', '--count', '1', '--interval', '200ms']);
    expect(r.code).toBe(0);
    const [views] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as LockView[]);
    expect(views!.map((v) => [v.kind, v.warnings.map((w) => w.severity)])).toEqual([
      ['not-a-lock', ['info']],
      ['token', []],
    ]);
  });

  it('ls lists the TTL-less ones nowhere but under --kind not-a-lock', async () => {
    const { timed } = await arrangeShapes();
    const r = await cli(['ls', '--json']);
    expect(r.code).toBe(0);
    const listed = (JSON.parse(r.stdout) as LockView[]).map((v) => [v.key, v.kind]);
    expect(listed.sort()).toEqual(timed.map((k) => [k, 'token']).sort());
  });
});

describe('doctor over token-shaped strings without TTL', () => {
  it('no error and no PEXPIRE: one note naming them; a lock-like name holding one is the usual app-data warning', async () => {
    await arrangeShapes();
    await fx.raw.set(INTEGER_SHAPE.key, '1'); // a semaphore without TTL: nothing to say
    const json = await cli(['doctor', '--json']);
    const findings = JSON.parse(json.stdout) as Finding[];
    // mutex:report is a lock's name whatever it holds: data there blocks that lock (scenario S16).
    expect(findings.map((f) => [f.severity, f.code, f.key, f.fix])).toEqual([
      ['warning', 'app-data-on-lock-name', 'mutex:report', `redis-cli -h 127.0.0.1 -p ${fx.server.port} DEL mutex:report`],
    ]);
    expect(findings[0]!.message).toMatch(/^a lock-like name holding a string of size 36 without TTL, which no lock library writes: application data, or a hand-written lock/);
    const text = await cli(['doctor']);
    expect(text.stdout).not.toMatch(/ERROR|PEXPIRE/);
    const others = shaped.filter((s) => s.key !== 'mutex:report');
    expect(text.stderr).toBe(
      `note: ${others.length} strings without TTL have the form of a token lock (cfg:salt, file:abc:md5, jobs:lease, and ${others.length - 3} more): read as application data, since every token library sets a TTL; if one is a lock set without expiry, redlock-cli inspect <key> --kind token shows its holder\n` +
        `1 problem (0 errors, 1 warning) in ${shaped.length + 1} locks among ${shaped.length * 2 + 1} keys matching *\n`,
    );
  });

  it('10,000 application strings: no finding, no write suggested; force-unlock --yes and release --kind token change nothing', async () => {
    // Application names only (a mutex: name is a lock's, above); every 7th an integer counter.
    const app = shaped.filter((s) => s.key !== 'mutex:report');
    const now = Date.now();
    const valueAt = (i: number) => (i % 7 === 0 ? String(i) : app[i % app.length]!.value(now));
    const keyAt = (i: number) => (i % 7 === 0 ? `visits:${i}` : `${app[i % app.length]!.key}:${i}`);
    const pipeline = fx.raw.pipeline();
    for (let i = 0; i < 10_000; i++) pipeline.set(keyAt(i), valueAt(i));
    await pipeline.exec();
    const before = await dumpAndExpiryAll(fx.raw);
    expect(before.size).toBe(10_000);
    const r = await cli(['doctor', '--json']);
    expect([r.code, JSON.parse(r.stdout) as Finding[]]).toEqual([0, []]);
    const tokenShaped = 10_000 - Math.ceil(10_000 / 7);
    expect(r.stderr).toMatch(new RegExp(`^note: ${tokenShaped.toLocaleString('en-US')} strings without TTL have the form of a token lock \\(.*, and ${(tokenShaped - 3).toLocaleString('en-US')} more\\): read as application data`));
    expect(r.stderr).toContain(`no problems found in ${Math.ceil(10_000 / 7).toLocaleString('en-US')} locks among 10,000 keys matching *`); // the integers read as semaphores
    // Every shape, a few keys each: the commands refuse in one line each and touch nothing.
    for (let i = 0; i < 42; i += 3) {
      for (const argv of [
        ['force-unlock', keyAt(i), '--yes'],
        ['release', keyAt(i), '--kind', 'token', '--owner', valueAt(i)],
      ]) {
        const refused = await cli(argv);
        expect([refused.code, refused.stdout, refused.stderr.trim().split('\n').length], argv.join(' ')).toEqual([2, '', 1]);
      }
    }
    expect(await dumpAndExpiryAll(fx.raw)).toEqual(before);
  }, 30_000);
});

describe('force-unlock --kind token --yes: the one way to delete a lock set without expiry', () => {
  it.each(shaped.map((s) => [s.shape, s] as const))('%s: deleted', async (_name, s) => {
    await fx.raw.set(s.key, s.value(Date.now()));
    const asked = await cli(['force-unlock', s.key, '--kind', 'token']);
    expect([asked.code, asked.stderr]).toEqual([2, expect.stringMatching(/pass --yes to confirm/)]);
    expect(await fx.raw.exists(s.key)).toBe(1);
    const r = await cli(['force-unlock', s.key, '--kind', 'token', '--yes']);
    expect([r.code, r.stdout]).toEqual([0, `force-unlocked "${s.key}" (token); waiters were notified\n`]);
    expect(await fx.raw.exists(s.key)).toBe(0);
  });

  it('hold of a TTL-less one is refused before anything is sent; of a TTL one, not acquired', async () => {
    const { bare, timed } = await arrangeShapes();
    const before = await dumpAndExpiryAll(fx.raw);
    for (const key of bare) {
      const r = await cli(['hold', key, '--kind', 'token', '--for', '1s']);
      expect([r.code, r.stdout, r.stderr], key).toEqual([2, '', expect.stringMatching(/holds a string without TTL/)]);
    }
    for (const key of timed) {
      const r = await cli(['hold', key, '--kind', 'token', '--for', '1s']);
      expect([r.code, r.stdout], key).toEqual([5, expect.stringMatching(/not acquired: .* is held by /)]);
    }
    expect(await dumpAndExpiryAll(fx.raw)).toEqual(before);
  });
});
