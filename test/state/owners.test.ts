import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOwners, ownersFile } from '../../src/state/owners.js';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { useLockServer } from '../helpers/fixture.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Issue 12 item 6: the owner memory (owners.json) under concurrency and damage.

const run = promisify(execFile);
const fx = useLockServer();
let env: Record<string, string | undefined>;

beforeAll(() => ensureBuilt(), 120_000);
beforeEach(() => {
  env = tempStateEnv({ REDIS_URL: fx.server.url });
});

const file = (): string => ownersFile(env);
const asideFiles = (): string[] => readdirSync(dirname(file())).filter((f) => f.startsWith('owners.json.corrupt-'));
function writeOwners(text: string): void {
  mkdirSync(dirname(file()), { recursive: true });
  writeFileSync(file(), text);
}

describe('owner memory', () => {
  it('20 acquires in 20 processes at once leave 20 remembered', async () => {
    const childEnv = { ...process.env, ...env } as NodeJS.ProcessEnv;
    const keys = Array.from({ length: 20 }, (_, i) => `par${i}`);
    await Promise.all(keys.map((key) => run(process.execPath, [BIN, 'acquire', key], { env: childEnv, timeout: 60_000 })));
    expect(await fx.raw.dbsize()).toBe(20);
    expect(loadOwners(env).map((e) => e.key).sort()).toEqual([...keys].sort());
    // The memory is usable: each is released by name, with no --owner.
    for (const key of keys.slice(0, 3)) expect((await runCli(['release', key], env)).code).toBe(0);
  }, 120_000);

  it('a damaged file is reported in one line and moved aside, never overwritten', async () => {
    writeOwners('{"this is": not json');
    const r = await runCli(['acquire', 'orders'], env);
    expect(r.code).toBe(0);
    const notes = r.stderr.split('\n').filter((l) => l.includes('owner memory'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/could not be read .*: moved it to .*owners\.json\.corrupt-/);
    expect(asideFiles()).toHaveLength(1);
    expect(readFileSync(`${dirname(file())}/${asideFiles()[0]}`, 'utf8')).toBe('{"this is": not json');
    expect(loadOwners(env).map((e) => e.key)).toEqual(['orders']);
  });

  it('a file that is JSON but not a list is moved aside too', async () => {
    writeOwners('{"orders": 1}');
    const r = await runCli(['release', 'orders', '--owner', '11111111-1111-4111-8111-111111111111:1'], env);
    expect(r.code).toBe(4); // nothing held
    expect(r.stderr).toMatch(/not a list of locks\): moved it to .*owners\.json\.corrupt-/);
    expect(asideFiles()).toHaveLength(1);
    expect((await runCli(['acquire', 'orders'], env)).stderr).not.toMatch(/owner memory/);
  });

  it('a null entry never crashes: skipped with a note, the rest still work', async () => {
    await runCli(['acquire', 'orders'], env);
    const kept = JSON.parse(readFileSync(file(), 'utf8')) as unknown[];
    writeOwners(JSON.stringify([null, ...kept, 42]));
    const r = await runCli(['release', 'orders'], env);
    expect(r).toMatchObject({ code: 0, stdout: 'released "orders"\n' });
    expect(r.stderr).toMatch(/skipped 2 unreadable entries in .*owners\.json/);
    expect(existsSync(file())).toBe(true);
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual([]);
  });
});
