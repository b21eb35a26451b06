import { describe, expect, it } from 'vitest';
import type { LockView } from '../../src/core/lock-view.js';
import { useRedisServer } from '../helpers/fixture.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// ShedLock locks through the commands a user runs (docs/lock-formats.md): inspect names the host
// and the time ShedLock stores, ls and doctor see a key outliving its job as normal, --kind
// shedlock takes it as a ShedLock provider would, force-unlock frees it for the next run.

const fx = useRedisServer({ flushEachTest: true });
const env = tempStateEnv();
const cli = (argv: readonly string[]) => runCli(argv, { ...env, REDIS_URL: fx.server.url });
const KEY = 'job-lock:default:nightly';
const V7 = 'ADDED:2026-11-28T02:00:00.123Z@worker-7:1b4e28ba-2fa1-41d2-883f-0016d3cca427';
const V5 = 'ADDED:2026-11-28T02:00:00.123Z@worker-7';

/** The block with times that move with the clock replaced, so it can be compared whole. */
const steady = (text: string) =>
  text
    .replace(/expires in [\d.]+ s/, 'expires in N')
    .replace(/\([^)]* ago\)/, '(T ago)')
    .replace(/by worker-7 [^:]* ago:/, 'by worker-7 T ago:');

describe('ShedLock locks in the commands', () => {
  it('inspect shows the host, when it was taken, its id, and that outliving its job is normal', async () => {
    await fx.raw.set(KEY, V7, 'PX', 50_000);
    const r = await cli(['inspect', KEY]);
    expect(r.code).toBe(0);
    expect(steady(r.stdout)).toBe(
      'job-lock:default:nightly  token lock (shedlock), expires in N\n' +
        `  held by   ${V7}\n` +
        '  host      worker-7\n' +
        '  locked at 2026-11-28T02:00:00.123Z (T ago)\n' +
        '  id        1b4e28ba-2fa1-41d2-883f-0016d3cca427\n' +
        '  note      ShedLock lock taken by worker-7 T ago: it expires at lockAtMostFor, and a job that ends sooner keeps it until lockAtLeastFor, so the key outliving its job is normal; a run that finds it held is skipped, not queued\n',
    );
  });

  it('a value from ShedLock before 6.7 (no unique id) is read too, with a note on its unchecked unlock', async () => {
    await fx.raw.set(KEY, V5, 'PX', 50_000);
    const [view] = JSON.parse((await cli(['inspect', KEY, '--json'])).stdout) as LockView[];
    expect(view).toMatchObject({ kind: 'token', library: 'shedlock', tokenFacts: { host: 'worker-7', lockedAt: Date.parse('2026-11-28T02:00:00.123Z') } });
    expect(view!.tokenFacts?.id).toBeUndefined();
    expect(view!.warnings.map((w) => [w.code, w.severity])).toEqual([
      ['shedlock-lock', 'info'],
      ['shedlock-no-unique-id', 'info'],
    ]);
  });

  it('ls lists ShedLock keys and doctor finds nothing wrong with a key kept until lockAtLeastFor', async () => {
    await fx.raw.set(KEY, V7, 'PX', 50_000);
    await fx.raw.set('job-lock:default:report', V5, 'PX', 5_000);
    const ls = await cli(['ls', '--json']);
    expect(ls.code).toBe(0);
    const views = JSON.parse(ls.stdout) as LockView[];
    expect(views.map((v) => [v.library, v.warnings.filter((w) => w.severity !== 'info')])).toEqual([
      ['shedlock', []],
      ['shedlock', []],
    ]);
    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(0);
    expect(doctor.stderr).toContain('no problems found in 2 locks');
  });

  it('acquire --kind shedlock writes its value; a second owner is refused; release lets the next run in', async () => {
    const taken = await cli(['acquire', KEY, '--kind', 'shedlock', '--lease', '10m', '--json']);
    expect(taken.code).toBe(0);
    const { owner } = JSON.parse(taken.stdout) as { owner: string };
    expect(owner).toMatch(/^ADDED:\d{4}-\d\d-\d\dT[\d:.]+Z@.+:[0-9a-f-]{36}$/);
    expect(await fx.raw.get(KEY)).toBe(owner);
    expect((await cli(['acquire', KEY, '--kind', 'shedlock'])).code).toBe(5);
    expect(await fx.raw.set(KEY, V7, 'PX', 60_000, 'NX')).toBeNull();
    expect((await cli(['release', KEY, '--owner', owner])).code).toBe(0);
    expect(await fx.raw.set(KEY, V7, 'PX', 60_000, 'NX')).toBe('OK');
  });

  it('force-unlock recognises a ShedLock key without --kind and frees it for the next run', async () => {
    await fx.raw.set(KEY, V7, 'PX', 60_000);
    const r = await cli(['force-unlock', KEY, '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('force-unlocked "job-lock:default:nightly" (shedlock); waiters were notified\n');
    expect(await fx.raw.set(KEY, V5, 'PX', 60_000, 'NX')).toBe('OK');
  });
});
