import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesUnder } from '../../src/sandbox/procfs.js';
import { readState } from '../../src/sandbox/state.js';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { tempStateEnv } from '../helpers/run-cli.js';
import { isAlive, probe } from '../helpers/sandbox.js';

// The built launcher as a user runs it: `up` must return while the servers keep running, and a
// real SIGINT (or a crash) half-way through `up` must not leave servers behind.
const stateEnv = tempStateEnv();
const env = { ...process.env, ...stateEnv, NO_COLOR: '1' };
const root = join(stateEnv.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes');
const seen = new Set<number>();

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'sandbox', ...args], { env, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts `up` in the background and returns once the state file lists `min` processes. */
async function upHalfway(name: string, min: number) {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'up', '--topology', 'sentinel', '--name', name], { env, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let pids: number[] = [];
  for (let i = 0; i < 1000 && pids.length < min; i++) {
    await new Promise((r) => setTimeout(r, 5));
    pids = readState(join(root, name))?.nodes.map((n) => n.pid) ?? [];
  }
  pids.forEach((p) => seen.add(p));
  return { child, exited, pids };
}

beforeAll(() => ensureBuilt(), 120_000);

afterAll(() => {
  cli('down', '--all');
  expect([...seen].filter(isAlive)).toEqual([]);
  // Also servers no state file named (spawned by an `up` killed before it could record them).
  expect(processesUnder(stateEnv.XDG_STATE_HOME!)).toEqual([]);
});

describe('redlock-cli sandbox (built, real processes)', () => {
  it('up returns while the servers keep running; down from another process stops them', async () => {
    const up = cli('up', '--topology', 'redlock', '--nodes', '3');
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/^sandbox "default" is up: redlock, 3 processes/);
    const state = readState(join(root, 'default'))!;
    state.nodes.forEach((n) => seen.add(n.pid));
    expect(await Promise.all(state.nodes.map((n) => probe(n.port)))).toEqual(['PONG', 'PONG', 'PONG']);
    const down = cli('down');
    expect(down.code).toBe(0);
    expect(state.nodes.map((n) => isAlive(n.pid))).toEqual([false, false, false]);
  });

  it('SIGINT in the middle of up stops what was started and exits 130', async () => {
    const { child, exited, pids } = await upHalfway('interrupted', 2);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(existsSync(join(root, 'interrupted'))).toBe(false);
  });

  it('after up crashed half-way, the next command finds the stale state, kills its servers and cleans up', async () => {
    const { child, exited, pids } = await upHalfway('crashed', 2);
    child.kill('SIGKILL');
    await exited;
    // Detached in their own session, the servers outlive the crashed CLI...
    expect(pids.some(isAlive)).toBe(true);
    const status = cli('status');
    expect(status.stderr).toMatch(/cleaned up stale sandbox "crashed": its `up` stopped before the topology was formed/);
    // ...until the next invocation cleans them up, by checked pid, including any it had spawned
    // but not yet recorded when it died.
    expect(pids.filter(isAlive)).toEqual([]);
    expect(processesUnder(join(root, 'crashed'))).toEqual([]);
    expect(existsSync(join(root, 'crashed'))).toBe(false);
  });
});
