// Issue 12, item 11: `kill -9` of `hold -- cmd` left the command running after the lock expired.
// Now a guard process (src/hold/guard.ts) holds a lifeline to `hold` and stops the
// command when it breaks. Asserted as an order of server-side facts, not a time window: by the
// time Redis has expired the key (nobody renews it any more), the command is no longer running.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli-process.js';
import { useRedisServer } from '../helpers/fixture.js';
import { tempStateEnv } from '../helpers/run-cli.js';

const env = tempStateEnv();
const fx = useRedisServer({ builtCli: true });

/** Running, as opposed to gone or a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

describe('hold -- cmd when hold itself is SIGKILLed', () => {
  it.each([
    ['a command that stops on SIGTERM', 'setInterval(() => {}, 1000)', '3s'],
    ['a command that ignores SIGTERM (SIGKILLed after --kill-grace)', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)", '300ms'],
  ])('%s is gone by the time the lock expires', async (_name, script, grace) => {
    const key = `k9-${grace}`;
    const hold = spawnCli(['hold', key, '--watchdog', '2s', '--kill-grace', grace, '-u', fx.server.url, '--', process.execPath, '-e', `console.log('ready'); ${script}`], env);
    await hold.waitFor(/^ready$/m);
    const pid = Number(/started pid (\d+)/.exec(hold.err())?.[1]);
    expect(running(pid)).toBe(true);
    expect(await fx.raw.pttl(key)).toBeGreaterThan(0);

    hold.child.kill('SIGKILL');
    expect(await hold.exited).toBe(137);
    // Watch both facts until the key has expired (nobody renews it now), in order of observation.
    let commandGoneFirst: boolean | undefined;
    for (let i = 0; i < 3000 && commandGoneFirst === undefined; i++) {
      const commandRunning = running(pid);
      const keyGone = (await fx.raw.exists(key)) === 0;
      if (keyGone) commandGoneFirst = !commandRunning;
      else await new Promise((r) => setTimeout(r, 10));
    }
    expect(commandGoneFirst).toBe(true);
  }, 60_000);
});
