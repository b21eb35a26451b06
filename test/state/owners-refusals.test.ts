// Issue 24, items 3 and 4: a state directory or owner memory the tool cannot use must cost one
// line on stderr, never the result (the lock in Redis is real), never a file it does not own,
// and never a raw byte on the terminal.
import { execFile } from 'node:child_process';
import { chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ownersFile } from '../../src/state/owners.js';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { useLockServer } from '../helpers/fixture.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

const run = promisify(execFile);
const fx = useLockServer();
let env: Record<string, string | undefined>;

beforeAll(() => ensureBuilt(), 120_000);
beforeEach(() => {
  env = tempStateEnv({ REDIS_URL: fx.server.url });
});

const file = (): string => ownersFile(env);
const memoryLines = (stderr: string): string[] => stderr.split('\n').filter((l) => /owner memory|state directory/.test(l));
const OWNER = /^acquired "orders" \(reentrant\) as ([0-9a-f-]{36}:\d+), lease 30\.0 s\n$/;

// Generous bounds: the owner-memory file beside this one starts 20 CLI processes at once.
describe('a state directory or owner memory that cannot be used', { timeout: 60_000 }, () => {
  it('an unusable state directory: the owner is printed, then one line about the directory, exit 0', async () => {
    const notADir = join(mkdtempSync(join(tmpdir(), 'redlock-cli-state-')), 'a-file');
    writeFileSync(notADir, '');
    let both = '';
    const r = await runCli(['acquire', 'orders'], { ...env, XDG_STATE_HOME: notADir }, undefined, (t) => (both += t));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(OWNER);
    expect(both.indexOf('acquired "orders"')).toBeLessThan(both.indexOf('cannot use the state directory'));
    expect(memoryLines(r.stderr)).toEqual([
      `cannot use the state directory ${notADir}/redlock-cli (a part of its path is not a directory; set XDG_STATE_HOME to a writable one): this lock was not remembered: pass --owner to release it`,
    ]);
    expect(await fx.raw.exists('orders')).toBe(1);
  });

  it('owners.json as a symbolic link is never followed: one line, the link and its target left as they are', async () => {
    const victim = join(mkdtempSync(join(tmpdir(), 'redlock-cli-victim-')), 'victim.json');
    writeFileSync(victim, '[]\n');
    mkdirSync(dirname(file()), { recursive: true });
    symlinkSync(victim, file());
    const r = await runCli(['acquire', 'orders'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(OWNER);
    expect(memoryLines(r.stderr)).toEqual([
      `the owner memory ${file()}: cannot read it (it is a symbolic link, which is never followed), so it was left as it is: this lock was not remembered: pass --owner to release it`,
    ]);
    expect(lstatSync(file()).isSymbolicLink()).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('[]\n');
  });

  it('a link planted where the new file is written is removed, never written through', async () => {
    const victim = join(mkdtempSync(join(tmpdir(), 'redlock-cli-victim-')), 'victim');
    writeFileSync(victim, 'precious\n');
    mkdirSync(dirname(file()), { recursive: true });
    symlinkSync(victim, `${file()}.${process.pid}.tmp`); // runCli writes from this process
    const r = await runCli(['acquire', 'orders'], env);
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(file()).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toHaveLength(1);
  });

  it('an owners.json it may not read is left as it is, with one line (never replaced)', async () => {
    // As root every file is readable: run the CLI as nobody, in a state directory nobody may write.
    const asRoot = process.getuid?.() === 0;
    mkdirSync(dirname(file()), { recursive: true, mode: 0o700 });
    writeFileSync(file(), '[]\n', { mode: asRoot ? 0o600 : 0o000 });
    if (asRoot) for (const dir of [env.XDG_STATE_HOME!, dirname(file())]) chownSync(dir, 65534, 65534);
    const options = { env: { PATH: process.env.PATH, XDG_STATE_HOME: env.XDG_STATE_HOME, REDIS_URL: fx.server.url, NO_COLOR: '1' }, timeout: 60_000 };
    const r = await run(process.execPath, [BIN, 'acquire', 'orders'], asRoot ? { ...options, uid: 65534, gid: 65534 } : options);
    expect(r.stdout).toMatch(OWNER);
    expect(memoryLines(r.stderr)).toEqual([
      `the owner memory ${file()}: cannot read it (permission denied), so it was left as it is: this lock was not remembered: pass --owner to release it`,
    ]);
    expect(readFileSync(file(), 'utf8')).toBe('[]\n');
  });

  it("a damaged file's warning is one line, its bytes escaped and cut short", async () => {
    writeOwners(`{"orders":\n\x1b[31m${'x'.repeat(300)}`);
    const r = await runCli(['acquire', 'orders'], env);
    expect(r.code).toBe(0);
    const lines = memoryLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^the owner memory .* could not be read \(.*\\x1b.*\): moved it to .*owners\.json\.corrupt-/);
    expect(r.stderr).not.toContain('\x1b');
    expect(r.stderr).not.toContain('x'.repeat(120));
  });
});

describe('the saved targets file (it may hold a password)', { timeout: 60_000 }, () => {
  it('a link planted where the new file is written is removed, never written through', async () => {
    const config = mkdtempSync(join(tmpdir(), 'redlock-cli-config-'));
    const targets = join(config, 'redlock-cli', 'targets.json');
    const victim = join(mkdtempSync(join(tmpdir(), 'redlock-cli-victim-')), 'victim');
    writeFileSync(victim, 'precious\n');
    mkdirSync(dirname(targets), { recursive: true });
    symlinkSync(victim, `${targets}.${process.pid}.tmp`);
    const r = await runCli(['target', 'add', 'prod', fx.server.url], { ...env, XDG_CONFIG_HOME: config });
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(JSON.parse(readFileSync(targets, 'utf8')).targets.prod.url).toBe(fx.server.url);
  });

  it('targets.json as a symbolic link is refused with one line, exit 1', async () => {
    const config = mkdtempSync(join(tmpdir(), 'redlock-cli-config-'));
    const targets = join(config, 'redlock-cli', 'targets.json');
    const victim = join(mkdtempSync(join(tmpdir(), 'redlock-cli-victim-')), 'victim.json');
    writeFileSync(victim, '{"version":1,"targets":{}}\n');
    mkdirSync(dirname(targets), { recursive: true });
    symlinkSync(victim, targets);
    const r = await runCli(['target', 'add', 'prod', fx.server.url], { ...env, XDG_CONFIG_HOME: config });
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: `redlock-cli: cannot read ${targets}: it is a symbolic link, which is never followed\n` });
    expect(readFileSync(victim, 'utf8')).toBe('{"version":1,"targets":{}}\n');
  });
});

function writeOwners(text: string): void {
  mkdirSync(dirname(file()), { recursive: true });
  writeFileSync(file(), text);
}
