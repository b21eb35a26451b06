import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readState, writeState } from '../../src/sandbox/state.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually, isAlive, probe } from '../helpers/sandbox.js';

// "Nothing else on the machine is ever signalled": a sandbox node that died leaves its pid in the
// state file, and the kernel may hand that pid to any process, even another redis-server. Every
// verb must see that the pid is no longer the sandbox's own node and leave it alone.

const env = tempStateEnv();
const root = join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes');
const cli = (...argv: string[]) => runCli(['sandbox', ...argv], env);
let stranger: RedisServer | undefined;

afterAll(async () => {
  await cli('down', '--all');
  await stranger?.stop();
});

/** Kills one node behind the tool's back and gives its pid in the state file to a fresh redis-server. */
async function reuseNodePid(sandbox: string, node: string): Promise<{ dir: string; others: number[] }> {
  const dir = join(root, sandbox);
  const state = readState(dir)!;
  const victim = state.nodes.find((n) => n.name === node)!;
  process.kill(victim.pid, 'SIGKILL');
  await eventually(async () => !isAlive(victim.pid));
  stranger = await startRedis();
  writeState({ ...state, nodes: state.nodes.map((n) => (n === victim ? { ...n, pid: stranger!.pid } : n)) });
  return { dir, others: state.nodes.filter((n) => n !== victim).map((n) => n.pid) };
}

async function strangerUntouched(): Promise<void> {
  expect(isAlive(stranger!.pid)).toBe(true);
  expect(await probe(stranger!.port)).toBe('PONG');
  await stranger!.stop();
  stranger = undefined;
}

describe('a state file whose pid now belongs to a stranger', () => {
  it('a sandbox with none of its own processes left is stale: cleaned up, the stranger left running', async () => {
    expect((await cli('up', '--name', 'reused')).code).toBe(0);
    const { dir } = await reuseNodePid('reused', 'n1');
    const kill = await cli('kill', 'n1', '--name', 'reused');
    expect(kill).toMatchObject({ code: 4, stdout: '' });
    expect(kill.stderr).toMatch(/^redlock-cli: sandbox "reused" was stale \(none of its processes is running any more\) and has been cleaned up/);
    expect(existsSync(dir)).toBe(false);
    await strangerUntouched();
  });

  it('down stops the nodes that are still its own and skips the reused pid', async () => {
    expect((await cli('up', '--name', 'partly', '--topology', 'replicated')).code).toBe(0);
    const { dir, others } = await reuseNodePid('partly', 'n2');
    const status = await cli('status', 'partly', '--json');
    const nodes = (JSON.parse(status.stdout) as { nodes: { name: string; state: string }[] }).nodes;
    expect(nodes.find((n) => n.name === 'n2')!.state).toBe('exited');
    const down = await cli('down', 'partly');
    expect(down.code).toBe(0);
    expect(down.stdout).toMatch(/2 process\(es\) killed, 1 already gone/);
    expect(others.filter(isAlive)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    await strangerUntouched();
  });
});
