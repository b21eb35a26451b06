import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli-process.js';
import { useRedisServer } from '../helpers/fixture.js';
import { tempStateEnv } from '../helpers/run-cli.js';

// Remembered owners go to a private state dir, never the user's.
const stateEnv = tempStateEnv();
const fx = useRedisServer({ builtCli: true });

/** Runs the built CLI as a real process with piped stdio (no TTY: event lines). */
const cli = (...args: string[]) => spawnCli(args, stateEnv);

describe('redlock-cli hold (built, real process)', () => {
  it('SIGINT releases the lock and exits 130', async () => {
    const p = cli('hold', 'e2e-lock', '-u', fx.server.url, '--watchdog', '1s');
    await p.waitFor(/acquired "e2e-lock"/);
    expect(await fx.raw.exists('e2e-lock')).toBe(1);
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(130);
    expect(await fx.raw.exists('e2e-lock')).toBe(0);
    expect(p.out()).toMatch(/released "e2e-lock" after .* \(interrupted\)\n$/);
  });

  it('SIGHUP (terminal closed) releases the lock like SIGTERM', async () => {
    const p = cli('hold', 'e2e-hup', '-u', fx.server.url, '--watchdog', '1s');
    await p.waitFor(/acquired "e2e-hup"/);
    p.child.kill('SIGHUP');
    expect(await p.exited).toBe(130);
    expect(await fx.raw.exists('e2e-hup')).toBe(0);
  });

  it('SIGTERM with a command under the lock stops the command, then releases, exit 130', async () => {
    const script = "console.log('ready'); setInterval(() => {}, 1000)";
    const p = cli('hold', 'e2e-cmd', '-u', fx.server.url, '--watchdog', '1s', '--', process.execPath, '-e', script);
    await p.waitFor(/^ready$/m);
    const pid = Number(/started pid (\d+)/.exec(p.err())?.[1]);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(130);
    expect(() => process.kill(pid, 0)).toThrow(); // the command is gone too
    expect(await fx.raw.exists('e2e-cmd')).toBe(0);
    expect(p.out()).toBe('ready\n');
  });
});
