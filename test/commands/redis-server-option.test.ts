import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/scenario/load.js';
import { NO_WRONG_VERDICT, runCli, tempStateEnv } from '../helpers/run-cli.js';
import { serverWrapper } from '../helpers/server-wrapper.js';

// --redis-server PATH, and $REDLOCK_REDIS_SERVER for all of them, pick the binary of every sandbox
// a command starts (sandbox up, scenario run, scenario run --all, race), so a team replays the
// catalogue on its exact server build. The binary here is a wrapper that counts its starts and
// then runs the real server, so each test sees which binary the sandbox ran.

const wrapper = serverWrapper();
const env = tempStateEnv();
const SHORT = 'expired-lease-misdeletion';
const dirs: string[] = [];
afterAll(() => {
  wrapper.remove();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts counted by the wrapper while `work` runs. */
async function startsDuring<T>(work: () => Promise<T>): Promise<{ result: T; starts: number }> {
  const before = wrapper.starts();
  const result = await work();
  return { result, starts: wrapper.starts() - before };
}

describe('the server binary of the sandboxes a command starts', () => {
  it('scenario run --redis-server runs the scenario on that binary', async () => {
    const { result, starts } = await startsDuring(() => runCli(['scenario', 'run', SHORT, '--variant', 'fixed', '--redis-server', wrapper.path, '--json'], env));
    expect(NO_WRONG_VERDICT, result.stderr).toContain(result.code);
    expect(starts).toBe(1);
  });

  it('scenario run --all --redis-server runs every scenario of the catalogue on it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redlock-server-catalogue-'));
    dirs.push(dir);
    cpSync((await resolveScenario(SHORT)).file, join(dir, `${SHORT}.yaml`));
    const { result, starts } = await startsDuring(() => runCli(['scenario', 'run', '--all', '--dir', dir, '--redis-server', wrapper.path, '--json'], env));
    expect(NO_WRONG_VERDICT, result.stderr).toContain(result.code);
    expect(starts).toBe(1);
  });

  it('$REDLOCK_REDIS_SERVER does the same for every command without the flag', async () => {
    const withServer = { ...env, REDLOCK_REDIS_SERVER: wrapper.path };
    const scenario = await startsDuring(() => runCli(['scenario', 'run', SHORT, '--variant', 'fixed', '--json'], withServer));
    expect(NO_WRONG_VERDICT, scenario.result.stderr).toContain(scenario.result.code);
    expect(scenario.starts).toBe(1);
    const up = await startsDuring(() => runCli(['sandbox', 'up', '--name', 'server-env', '--json'], withServer));
    expect(up.result.code, up.result.stderr).toBe(0);
    expect(up.starts).toBe(1);
    expect((await runCli(['sandbox', 'down', 'server-env'], withServer)).code).toBe(0);
  });

  it('race --redis-server races on a sandbox of that binary', async () => {
    const { result, starts } = await startsDuring(() => runCli(['race', 'server-race', '--clients', '2', '--duration', '500ms', '--redis-server', wrapper.path, '--json'], env));
    expect(result.code, result.stderr).toBe(0);
    expect(starts).toBe(1);
  });
});

describe('a wrong server binary is one usage error before anything starts', () => {
  it.each([
    { name: 'scenario run', args: ['scenario', 'run', SHORT, '--redis-server', '/bin/nope'], says: '--redis-server /bin/nope: not an executable file' },
    { name: 'scenario run --all (once, not per scenario)', args: ['scenario', 'run', '--all', '--redis-server', '/bin/nope'], says: '--redis-server /bin/nope: not an executable file' },
    { name: 'race', args: ['race', 'k', '--redis-server', '/bin/nope'], says: '--redis-server /bin/nope: not an executable file' },
    { name: 'race --url with --redis-server', args: ['race', 'k', '--url', 'redis://127.0.0.1:1', '--redis-server', '/bin/sh'], says: '--redis-server picks the binary of the sandbox a race starts' },
  ])('$name', async ({ args, says }) => {
    const r = await runCli(args, env);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(says);
    expect(r.stdout).toBe('');
  });

  it('$REDLOCK_REDIS_SERVER naming no executable is named in the error', async () => {
    const r = await runCli(['sandbox', 'up', '--name', 'server-env-bad'], { ...env, REDLOCK_REDIS_SERVER: '/bin/nope' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^redlock-cli: REDLOCK_REDIS_SERVER=\/bin\/nope: not an executable file; /);
  });
});
