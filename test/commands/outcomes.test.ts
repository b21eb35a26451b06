// Lock commands report what they did as typed outcomes through ctx.emit, only when they succeed,
// and print exactly the same with or without a host listening (real redis-server).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../../src/commands/context.js';
import type { CommandOutcome } from '../../src/core/outcomes.js';
import { run } from '../../src/main.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { tempStateEnv } from '../helpers/run-cli.js';

let server: RedisServer;
const env = tempStateEnv();

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

async function cli(argv: readonly string[], listen = true) {
  let stdout = '';
  let stderr = '';
  const outcomes: CommandOutcome[] = [];
  const ctx: RunContext = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env,
    ...(listen ? { emit: (o: CommandOutcome) => void outcomes.push(o) } : {}),
  };
  const code = await run([...argv, '--url', server.url], ctx);
  return { code, stdout, stderr, outcomes };
}

const OWNER = '0c0c0c0c-0000-4000-8000-00000000000c:1';
const where = (): string => `127.0.0.1:${server.port}`;

describe('typed outcomes of the lock commands', () => {
  it('acquire, renew and release each report one outcome with the lock and where it lives', async () => {
    // What every outcome of this lock says: which lock, whose, where, when.
    const lock = { key: 'o1', kind: 'reentrant', owner: OWNER, target: where(), at: expect.any(Number) };
    const acquired = await cli(['acquire', 'o1', '--lease', '10s', '--owner', OWNER]);
    expect(acquired.outcomes).toEqual([{ type: 'lock-acquired', ...lock, leaseMs: 10_000 }]);
    const renewed = await cli(['renew', 'o1', '--lease', '20s', '--owner', OWNER]);
    expect(renewed.outcomes).toEqual([{ type: 'lock-renewed', ...lock, leaseMs: 20_000 }]);
    const released = await cli(['release', 'o1', '--owner', OWNER]);
    expect(released.outcomes).toEqual([{ type: 'lock-released', ...lock, gone: true }]);
  });

  it('reports nothing when the command did nothing: refused, not owner, not found', async () => {
    expect((await cli(['acquire', 'o2', '--lease', '10s', '--owner', OWNER])).code).toBe(0);
    const refused = await cli(['acquire', 'o2', '--owner', '0d0d0d0d-0000-4000-8000-00000000000d:1']);
    expect(refused.code).toBe(5);
    expect(refused.outcomes).toEqual([]);
    const notOwner = await cli(['release', 'o2', '--owner', '0d0d0d0d-0000-4000-8000-00000000000d:1']);
    expect(notOwner.code).toBe(5);
    expect(notOwner.outcomes).toEqual([]);
    const forced = await cli(['force-unlock', 'o2', '--yes']);
    expect(forced.outcomes).toEqual([
      { type: 'lock-force-unlocked', key: 'o2', kind: 'reentrant', target: where(), at: expect.any(Number) },
    ]);
    const gone = await cli(['force-unlock', 'o2', '--yes']);
    expect(gone.code).toBe(4);
    expect(gone.outcomes).toEqual([]);
  });

  it('prints the same text and JSON whether or not a host listens', async () => {
    for (const json of [[], ['--json']]) {
      const heard = await cli(['acquire', 'o3', '--lease', '10s', '--owner', OWNER, ...json]);
      const plain = await cli(['acquire', 'o3', '--lease', '10s', '--owner', OWNER, ...json], false);
      // The second acquire re-enters: only the hold count differs.
      expect(plain.stdout.replace(/, hold count 2|"count":2/, '')).toBe(heard.stdout.replace(/"count":1/, ''));
      expect(plain.stderr).toBe(heard.stderr);
      await cli(['release', 'o3', '--owner', OWNER, '--all-holds']);
    }
  });
});
