import { describe, expect, it } from 'vitest';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// What a Redisson, redis-semaphore or consul user types first gets this tool's name back: one
// line, exit 2, before anything connects (the URL below has no server).

const env = tempStateEnv({ REDIS_URL: 'redis://127.0.0.1:1' });
const run = (...argv: string[]) => runCli(argv, env);

describe('other libraries\' names', () => {
  it.each([
    [['acquire', 'k', '--kind', 'rlock'], 'unknown lock kind "rlock" (Did you mean reentrant?)'],
    [['acquire', 'k', '--kind', 'fairlock'], 'unknown lock kind "fairlock" (Did you mean fair?)'],
    [['acquire', 'k', '--kind', 'RReadWriteLock'], 'unknown lock kind "RReadWriteLock" (Did you mean one of read, write?)'],
    [['release', 'k', '--kind', 'mutex', '--owner', 'x'], 'unknown lock kind "mutex" (Did you mean token?)'],
    [['inspect', 'k', '--kind', 'semaphore-lock'], 'unknown kind "semaphore-lock" (Did you mean one of rs-semaphore, semaphore?)'],
    [['inspect', 'k', '--kind', 'RReadWriteLock'], 'unknown kind "RReadWriteLock" (Did you mean one of read, write, rw?)'],
    [['ls', '--kind', 'RCountDownLatch'], 'unknown kind "RCountDownLatch" (Did you mean latch?)'],
    [['race', 'k', '--kind', 'rlock'], 'unknown lock kind "rlock" (Did you mean reentrant?)'],
    [['acquire', 'k', '--kind', 'reentrnat'], 'unknown lock kind "reentrnat" (Did you mean reentrant?)'],
  ])('--kind: %j', async (argv, says) => {
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^redlock-cli: ${says.replace(/[()?]/g, '\\$&')}: use one of [a-z, -]+\\n$`));
  });

  it.each([
    [['lock', 'orders'], 'acquire'],
    [['unlock', 'orders', '--owner', 'x'], 'release'],
    [['info', 'orders'], 'inspect'],
    [['-u', 'redis://127.0.0.1:1', 'lock', 'orders', '--help'], 'acquire'],
  ])('commands: %j', async (argv, ours) => {
    expect(await run(...argv)).toEqual({ code: 2, stdout: '', stderr: `redlock-cli: unknown command '${argv.find((a) => ['lock', 'unlock', 'info'].includes(a))}' (Did you mean ${ours}?)\n` });
  });

  it('--help lists none of them', async () => {
    expect((await run('--help')).stdout).not.toMatch(/^\s+(lock|unlock|info)\b/m);
  });
});
