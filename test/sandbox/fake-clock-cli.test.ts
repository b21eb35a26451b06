import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { detectClockSupport } from '../../src/sandbox/clock.js';
import { readState } from '../../src/sandbox/state.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually, isAlive } from '../helpers/sandbox.js';

// `up --fake-clock` as a user types it: later `clock` invocations move the node's real clock.
const env = tempStateEnv();
const cli = (...argv: string[]) => runCli(['sandbox', ...argv, '--name', 'clocked'], env);
const pids: number[] = [];
let client: Redis | undefined;

afterAll(async () => {
  client?.disconnect();
  expect((await cli('down')).code).toBe(0);
  await eventually(async () => pids.every((p) => !isAlive(p)), 2000);
}, 30_000);

describe.runIf(detectClockSupport().method === 'faketime')('redlock-cli sandbox up --fake-clock', () => {
  it('clock n1 +10s then goes through libfaketime and expires a 10 s key on that node', async () => {
    const up = await cli('up', '--fake-clock');
    expect(up.code).toBe(0);
    const n1 = readState(join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes', 'clocked'))!.nodes.find((n) => n.name === 'n1')!;
    pids.push(n1.pid);
    expect(n1.env?.LD_PRELOAD).toMatch(/faketime/);
    client = new Redis({ port: n1.port, host: '127.0.0.1', retryStrategy: () => null });
    await client.set('lease', 'a', 'PX', 10_000);
    const clock = await cli('clock', 'n1', '+10s');
    expect(clock).toMatchObject({ code: 0, stderr: '' });
    expect(clock.stdout).toMatch(/^clock \+10\.0 s on n1 via libfaketime/);
    await eventually(async () => (await client!.exists('lease')) === 0, 1000);
  });
});
