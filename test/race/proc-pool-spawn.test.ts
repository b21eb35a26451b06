// Issue 24, item 2: a fork the system refuses (EAGAIN past the process limit, ENOMEM) emitted an
// 'error' nobody handled, which ended the race and left the workers already forked running. Now
// any failed start stops every worker started (by pid) and is one CliError line (exit 1). The
// failure is a real failed spawn (a node that does not exist), on the third worker of four,
// through the pool's spawnWorker seam; the other workers are real forks connecting to Redis.
import { parseEndpointUrl } from '../../src/core/endpoint.js';
import { type ChildProcess, fork } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/exit-codes.js';
import { ProcPool, type SpawnWorker } from '../../src/race/proc-pool.js';
import { Recorder } from '../../src/race/recorder.js';
import { isAlive } from '../../src/sandbox/procfs.js';
import { ensureBuilt } from '../helpers/build.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { raceWorkers } from './helpers.js';

let server: RedisServer;
const forked: ChildProcess[] = [];

beforeAll(async () => {
  ensureBuilt();
  server = await startRedis();
}, 120_000);
afterAll(async () => {
  for (const child of forked) if (child.pid !== undefined && isAlive(child.pid)) child.kill('SIGKILL');
  await server?.stop();
});

const STDIO = ['ignore', 'ignore', 'pipe', 'ipc'] as const;

/** Real forks, except the `failing`th, which the system refuses (as it does past a limit). */
function spawner(failing: number, how: 'error' | 'throw'): SpawnWorker {
  let n = 0;
  return (path) => {
    n += 1;
    if (n === failing && how === 'throw') throw Object.assign(new Error('spawn ENOMEM'), { code: 'ENOMEM' });
    const child = fork(path, [], { execArgv: [], stdio: [...STDIO], ...(n === failing ? { execPath: '/nonexistent/node' } : {}) });
    forked.push(child);
    return child;
  };
}

function pool(spawnWorker: SpawnWorker): ProcPool {
  const emit = () => undefined;
  return new ProcPool({
    config: { session: { kind: 'token', target: parseEndpointUrl(server.url), leaseMs: 1000, release: 'safe', renew: true }, holdMs: 10, holdDist: 'fixed', waitMs: 500 },
    emit,
    resource: () => 0,
    rec: new Recorder(() => 0, emit),
    spawnWorker,
  });
}

const groups = [[{ name: 'c1', key: 'k' }], [{ name: 'c2', key: 'k' }], [{ name: 'c3', key: 'k' }], [{ name: 'c4', key: 'k' }]];

describe('a worker that cannot be forked', () => {
  it.each(['error', 'throw'] as const)('(%s) stops every worker started, and says so in one line', async (how) => {
    const before = forked.length;
    const err = await pool(spawner(3, how))
      .start(groups)
      .then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ exitCode: ExitCode.unexpected, message: expect.stringMatching(/^could not start race worker 3 of 4 \((spawn \/nonexistent\/node ENOENT|spawn ENOMEM)\): use fewer --procs, or none$/) });
    const started = forked.slice(before).filter((c) => c.pid !== undefined);
    expect(started.length).toBe(how === 'error' ? 3 : 2);
    expect(started.map((c) => c.pid!).filter(isAlive)).toEqual([]);
    expect(raceWorkers()).toEqual([]);
  }, 60_000);

  it('a pool whose forks all work starts and stops its workers', async () => {
    const p = pool(spawner(0, 'error'));
    await p.start(groups.slice(0, 2));
    expect(raceWorkers()).toHaveLength(2);
    await p.stop();
    expect(raceWorkers()).toEqual([]);
  }, 60_000);
});
