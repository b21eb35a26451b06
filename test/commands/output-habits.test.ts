// Issue 16, the output half, on a real redis-server: compound durations, the live "who holds it"
// line of acquire --wait on a terminal (and nothing when piped), colour on a terminal only, doctor
// citing scenarios by name, and a CJK key that lines up in ls.
import { readdirSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { DOCTOR_CODES } from '../../src/core/doctor-codes.js';
import { displayWidth } from '../../src/core/text-layout.js';
import { useLockServer } from '../helpers/fixture.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const fx = useLockServer();
let env: Record<string, string | undefined>;
beforeEach(() => {
  env = tempStateEnv({ REDIS_URL: fx.server.url });
});

const OWNER_A = '11111111-1111-4111-8111-111111111111:1';
const OWNER_B = '22222222-2222-4222-8222-222222222222:7';
const ESC = '\u001b[';

/** Runs the CLI with either stream claiming to be a terminal of `columns`. */
async function runTty(argv: readonly string[], runEnv: Record<string, string | undefined>, tty: { stdout?: boolean; stderr?: boolean }, columns = 100) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: (t: string) => (stdout += t), isTTY: tty.stdout === true, columns },
    stderr: { write: (t: string) => (stderr += t), isTTY: tty.stderr === true, columns },
    env: runEnv,
  });
  return { code, stdout, stderr };
}

describe('durations', () => {
  it('--lease 1m30s and 1h15m take the compound length; 1d is a day', async () => {
    expect((await runCli(['acquire', 'a', '--lease', '1m30s', '--owner', OWNER_A], env)).code).toBe(0);
    const a = await fx.raw.pttl('a');
    expect(a).toBeGreaterThan(80_000);
    expect(a).toBeLessThanOrEqual(90_000);
    expect((await runCli(['acquire', 'b', '--lease', '1h15m', '--owner', OWNER_A], env)).stdout).toContain('lease 1 h 15 m');
    expect(await fx.raw.pttl('b')).toBeGreaterThan(4_490_000);
    expect((await runCli(['acquire', 'c', '--lease', '1d', '--owner', OWNER_A], env)).code).toBe(0);
    expect(await fx.raw.pttl('c')).toBeGreaterThan(86_390_000);
  });

  it('units out of order are one usage line, exit 2, and nothing written', async () => {
    const r = await runCli(['acquire', 'd', '--lease', '30s1m'], env);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe('redlock-cli: invalid --lease duration "30s1m": use a number with ms, s, m, h or d, or a compound (e.g. 500ms, 5s, 1m30s, 2h, 1d)\n');
    expect(await fx.raw.exists('d')).toBe(0);
  });
});

describe('acquire --wait shows who holds the lock while it waits', () => {
  it('on a terminal: holder, lease left, fair queue place and time waited on stderr, erased at the end; stdout only the result', async () => {
    // A holds the fair lock for 4 s; B waits for it, so we queue second behind B. The leases leave
    // a busy machine seconds to start our process and draw each state (A's, then B's 1.5 s).
    expect((await runCli(['acquire', 'q', '--kind', 'fair', '--lease', '4s', '--owner', OWNER_A], env)).code).toBe(0);
    const queued = runCli(['acquire', 'q', '--kind', 'fair', '--wait', '20s', '--lease', '1500ms', '--owner', OWNER_B], env);
    await expect.poll(() => fx.raw.llen('redisson_lock_queue:{q}'), { timeout: 5000 }).toBe(1);
    const r = await runTty(['acquire', 'q', '--kind', 'fair', '--wait', '20s', '--lease', '5s'], env, { stderr: true }, 160);
    expect((await queued).code).toBe(0);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^acquired "q" \(fair\) as /);
    expect(r.stdout).not.toContain('waiting');
    expect(r.stderr).toMatch(new RegExp(`waiting for "q" \\(Ctrl-C gives up\\): waited \\d.* · 2nd in the queue · lease left [\\d.]+ (ms|s) · held by ${OWNER_A}`));
    // Redrawn in place and erased before the result: the last status is wiped by an erase-line.
    expect(r.stderr).toContain('\r\u001b[2K');
    expect(r.stderr.lastIndexOf('\r\u001b[2K')).toBeGreaterThan(r.stderr.lastIndexOf('waiting for'));
    // Then B (who queued first) takes it, and we are next in line behind B.
    expect(r.stderr).toMatch(new RegExp(`· 1st in the queue · lease left [\\d.]+ (ms|s) · held by ${OWNER_B}`));
    for (const drawn of r.stderr.split('\r\u001b[2K')) expect(displayWidth(drawn.split('\n')[0]!)).toBeLessThan(160);
  });

  it('piped: not a character more than without waiting', async () => {
    expect((await runCli(['acquire', 'p', '--lease', '700ms', '--owner', OWNER_A], env)).code).toBe(0);
    const r = await runCli(['acquire', 'p', '--wait', '10s', '--lease', '5s', '--owner', OWNER_B], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`acquired "p" (reentrant) as ${OWNER_B}, lease 5.0 s\n`);
    expect(r.stderr).toBe('release it with: redlock-cli release p\n');
  });
});

describe('hold --wait piped', () => {
  it('NDJSON has the same events as without waiting: no line per refused attempt', async () => {
    expect((await runCli(['acquire', 'h', '--kind', 'fair', '--lease', '800ms', '--owner', OWNER_A], env)).code).toBe(0);
    const r = await runCli(['hold', 'h', '--kind', 'fair', '--wait', '10s', '--lease', '2s', '--for', '100ms', '--json'], env);
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { event: string }).event);
    expect(events).toEqual(['acquiring', 'acquired', 'released']);
    expect(r.stderr).toBe('');
  });
});

describe('colour', () => {
  beforeEach(async () => {
    await fx.raw.hset('orders', OWNER_A, '1');
    await fx.raw.pexpire('orders', 60_000);
  });

  it('on a terminal: keys and holders in their own colours, refusals yellow, errors red', async () => {
    const inspect = await runTty(['inspect', 'orders'], env, { stdout: true });
    expect(inspect.stdout).toContain(`${ESC}36morders${ESC}39m`);
    expect(inspect.stdout).toContain(`${ESC}32m11111111-1111-4111-8111-111111111111 thread 1${ESC}39m`);
    const ls = await runTty(['ls'], env, { stdout: true });
    expect(ls.stdout).toContain(`${ESC}36morders${ESC}39m`);
    const refused = await runTty(['acquire', 'orders', '--owner', OWNER_B], env, { stderr: true });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(`${ESC}33mnot acquired: "orders" is held by ${OWNER_A}`);
    const error = await runTty(['acquire', 'orders', '--lease', 'soon'], env, { stderr: true });
    expect(error.stderr).toMatch(/^\u001b\[31mredlock-cli: invalid --lease duration "soon"/);
  });

  it.each([
    ['NO_COLOR', ['inspect', 'orders'], { NO_COLOR: '1' }],
    ['--no-color', ['inspect', 'orders', '--no-color'], {}],
    ['FORCE_COLOR=0', ['inspect', 'orders'], { FORCE_COLOR: '0' }],
  ])('off with %s, even on a terminal', async (_name, argv, extra) => {
    const r = await runTty(argv, { ...env, ...extra }, { stdout: true, stderr: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('orders  Redisson lock');
    expect(r.stdout + r.stderr).not.toContain(ESC);
  });

  it('off in a pipe', async () => {
    const r = await runCli(['inspect', 'orders'], env);
    expect(r.stdout).toContain('orders  Redisson lock');
    expect(r.stdout).not.toContain(ESC);
  });
});

describe('doctor cites scenarios by name', () => {
  const shipped = new Set(readdirSync('scenarios').filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, '')));

  it('every finding code names a shipped scenario', () => {
    for (const c of DOCTOR_CODES) if (c.scenario !== undefined) expect(shipped, c.code).toContain(c.scenario);
  });

  it('a finding ends with the scenario show command that replays it, and --json carries its name', async () => {
    await fx.raw.hset('stuck', OWNER_A, '1');
    const text = await runCli(['doctor'], env);
    expect(text.code).toBe(6);
    expect(text.stdout).toContain('see: redlock-cli scenario show setnx-expire-crash\n');
    const json = await runCli(['doctor', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject([{ code: 'no-ttl', scenario: 'setnx-expire-crash' }]);
    const show = await runCli(['scenario', 'show', 'setnx-expire-crash'], env);
    expect(show.code).toBe(0);
  });

  it('help and findings carry no catalogue numbers (S10, S5b)', async () => {
    await fx.raw.hset('stuck', OWNER_A, '1');
    const help = await runCli(['doctor', '--help'], env);
    expect(help.stdout).toContain('(scenario show fair-lock-dead-waiter)');
    for (const text of [help.stdout, (await runCli(['doctor'], env)).stdout]) expect(text).not.toMatch(/\bS\d+[ab]?\b/);
  });
});

describe('display width', () => {
  it('ls lines up the columns after a CJK key as after an ascii one', async () => {
    for (const key of ['注文ロック', 'orders']) {
      await fx.raw.hset(key, OWNER_A, '1');
      await fx.raw.pexpire(key, 60_000);
    }
    const r = await runTty(['ls'], env, { stdout: true }, 120);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const kindAt = lines.map((l) => displayWidth(l.slice(0, l.search(/\b(KIND|reentrant)\b/))));
    expect(new Set(kindAt).size).toBe(1);
  });
});
