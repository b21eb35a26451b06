import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// Everything here is refused before a server, a sandbox or a client starts: the state dir
// stays empty (no sandbox was created), nothing listens on the URL given, and the redis-server
// every sandbox would run is a stand-in that leaves a mark when started, so "no server was
// started" is a fact on disk rather than something inferred from how fast the answer came.
const fakeServerDir = mkdtempSync(join(tmpdir(), 'redlock-cli-fake-server-'));
const fakeServer = join(fakeServerDir, 'redis-server');
const serverStartedMark = join(fakeServerDir, 'started');
writeFileSync(fakeServer, `#!/bin/sh\ntouch '${serverStartedMark}'\nexit 1\n`);
chmodSync(fakeServer, 0o755);
const env = tempStateEnv({ REDLOCK_REDIS_SERVER: fakeServer });
const sandboxes = join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes');
const URL = 'redis://127.0.0.1:1';

const race = (...args: string[]) => runCli(['race', 'orders', ...args], env);

describe('race refuses bad input with exit 2 before starting', () => {
  // The first run loads the CLI's modules, which takes seconds on a loaded machine; load them
  // here so the bound below measures the refusal, not the import.
  beforeAll(async () => {
    await race('--kind', 'mutex');
  }, 60_000);

  it.each([
    [['--clients', '0'], 'invalid --clients "0": use a whole number from 1 to 10000'],
    [['--clients', 'many'], 'invalid --clients "many": use a whole number from 1 to 10000'],
    [['--hold', '5s', '--duration', '5s'], '--hold must be shorter than --duration'],
    [['--hold', '20 ms'], 'invalid --hold duration "20 ms"'],
    [['--duration', '10'], 'invalid --duration duration "10"'],
    [['--kind', 'mutex'], 'unknown lock kind "mutex"'],
    [['--kind', 'read'], 'read locks are shared by design'],
    [['--hold-dist', 'normal'], 'unknown --hold-dist "normal"'],
    [['--clients', '2', '--procs', '3'], '--procs 3 is more than --clients 2'],
    [['--chaos', 'flood'], 'unknown --chaos verb "flood"'],
    [['--url', URL], 'race writes locks at 127.0.0.1:1, which is not a redlock-cli sandbox: pass --yes to race there'],
    [['--url', URL, '--chaos', 'partition', '--yes'], '--chaos partition faults a server, and a race never faults one that is not a redlock-cli sandbox'],
    [['--url', URL, '--chaos', 'failover', '--yes'], '--chaos failover faults a server'],
    [['-p', '1', '--chaos', 'clock', '--yes'], '--chaos clock faults a server'],
    [['--url', URL, '--sandbox', 'x'], '--sandbox already says where to connect: drop --url'],
    [['--url', URL, '--redis-server', '/bin/true'], '--redis-server picks the binary of the sandbox a race starts'],
    [['--kind', 'redlock', '--chaos', 'failover'], 'Redlock nodes are independent primaries'],
  ])('%j', async (args, message) => {
    const started = Date.now();
    const r = await race(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    // Loose on purpose (a loaded machine still meets it), yet shorter than the default
    // --duration of 10 s, so a race that started and ran its course fails it.
    expect(Date.now() - started).toBeLessThan(9000);
    expect(existsSync(sandboxes) ? readdirSync(sandboxes) : []).toEqual([]);
    expect(existsSync(serverStartedMark)).toBe(false);
  });

  it('an unknown sandbox is not found (exit 4), and none is started', async () => {
    const r = await race('--sandbox', 'nope');
    expect(r.code).toBe(4);
    expect(existsSync(sandboxes) ? readdirSync(sandboxes) : []).toEqual([]);
    expect(existsSync(serverStartedMark)).toBe(false);
  });
});

describe('race checks the open-files limit first', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('too many clients for ulimit -n: one line naming the fix, exit 2', async () => {
    const run = promisify(execFile);
    const script = `ulimit -n 256; exec node ${BIN} race orders --clients 500 --url ${URL} --yes`;
    const err = await run('bash', ['-c', script], { env: { ...process.env, ...env } }).then(
      () => undefined,
      (e: { code: number; stderr: string; stdout: string }) => e,
    );
    expect(err?.code).toBe(2);
    expect(err?.stdout).toBe('');
    expect(err?.stderr.trim()).toBe(
      'redlock-cli: 500 clients in one process need about 1064 open files, and ulimit -n is 256: raise it for this shell (ulimit -n 1064) or spread the clients over processes with --procs',
    );
  });
});
