// Issue 24, item 1 and the background-job part of item 4: the command under `hold -- cmd` must
// never run without the lock, whatever happens to `hold` or to the guard between them:
// - `hold` stopped (SIGSTOP, Ctrl-Z): the guard's own deadline stops the command before the lease ends;
// - the guard SIGKILLed: `hold` stops the command's group itself, and only then releases;
// - the command exits but leaves a background job: the job is stopped before the release.
// Asserted as orders of server-side facts (the key's existence against /proc), never time windows.
import { afterEach, describe, expect, it } from 'vitest';
import { procStat } from '../../src/sandbox/procfs.js';
import { spawnCli } from '../helpers/cli-process.js';
import { useRedisServer } from '../helpers/fixture.js';
import { tempStateEnv } from '../helpers/run-cli.js';

const env = tempStateEnv();
const fx = useRedisServer({ builtCli: true });

/** Processes this file must not leave behind if a test fails: resumed (a stopped hold), then killed by pid. */
const started = new Set<number>();
afterEach(() => {
  for (const pid of started) {
    for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone already
      }
    }
  }
  started.clear();
});


/** Running, as opposed to gone or a zombie waiting to be reaped. */
const running = (pid: number): boolean => {
  const state = procStat(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
};

/** Polls (bounded) until the key is gone; says whether `pid` was still running when it went. */
async function runningWhenKeyWent(key: string, pid: number): Promise<boolean | undefined> {
  for (let i = 0; i < 3000; i++) {
    const commandRunning = running(pid);
    if ((await fx.raw.exists(key)) === 0) return commandRunning;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

function holdWith(key: string, args: readonly string[], script: string) {
  const hold = spawnCli(['hold', key, ...args, '-u', fx.server.url, '--', process.execPath, '-e', script], env);
  started.add(hold.pid);
  return hold;
}

async function startedCommand(hold: ReturnType<typeof holdWith>): Promise<{ pid: number; guard: number }> {
  await hold.waitFor(/^ready$/m);
  const pid = Number(/started pid (\d+)/.exec(hold.err())?.[1]);
  started.add(pid);
  const guard = Number(procStat(pid)?.[1]); // the guard is the command's parent
  started.add(guard);
  return { pid, guard };
}

describe('hold -- cmd when hold or its guard cannot do their part', () => {
  it('hold SIGSTOPped: the guard stops the command before the lease ends; resumed, hold reports the loss (exit 5)', async () => {
    const hold = holdWith('stopped-hold', ['--watchdog', '3s'], "console.log('ready'); setInterval(() => {}, 1000)");
    const { pid } = await startedCommand(hold);
    expect(running(pid)).toBe(true);

    process.kill(hold.pid, 'SIGSTOP'); // as Ctrl-Z would: no renewal and no stop from hold now
    expect(await runningWhenKeyWent('stopped-hold', pid)).toBe(false);
    process.kill(hold.pid, 'SIGCONT');
    expect(await hold.exited).toBe(5);
    expect(hold.err()).toMatch(/stopping pid \d+ with SIGTERM: its lease is running out unconfirmed/);
    expect(hold.err()).toMatch(/lost "stopped-hold"/);
  }, 60_000);

  it('guard SIGKILLed: hold stops the command itself before it releases the lock (exit 1)', async () => {
    const hold = holdWith('dead-guard', ['--watchdog', '2s'], "console.log('ready'); setInterval(() => {}, 1000)");
    const { pid, guard } = await startedCommand(hold);
    expect(running(guard)).toBe(true);

    process.kill(guard, 'SIGKILL');
    expect(await runningWhenKeyWent('dead-guard', pid)).toBe(false);
    expect(await hold.exited).toBe(1);
    expect(hold.err()).toMatch(/stopping pid \d+ with SIGTERM: its guard process died/);
    expect(hold.err()).toMatch(/released "dead-guard"/);
    expect(hold.err()).toMatch(/the guard process of pid \d+ died: stopped the command's process group, then released the lock\n$/);
  }, 60_000);

  it("a background job the command leaves behind is stopped before the lock is released", async () => {
    // The command starts a child in its own process group and exits at once.
    const script =
      "const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });" +
      "console.log('job ' + c.pid); console.log('ready'); c.unref(); process.exit(0)";
    const hold = holdWith('leftover', ['--watchdog', '2s'], script);
    await hold.waitFor(/^ready$/m);
    const job = Number(/^job (\d+)$/m.exec(hold.out())?.[1]);
    started.add(job);
    expect(await runningWhenKeyWent('leftover', job)).toBe(false);
    expect(await hold.exited).toBe(0);
    expect(hold.err()).toMatch(/stopping pid \d+ with SIGTERM: left running by the command that exited/);
  }, 60_000);
});
