import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readState } from '../../src/sandbox/state.js';
import type { SandboxStatus } from '../../src/sandbox/index.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually, isAlive } from '../helpers/sandbox.js';

// `sandbox status` as a user reads it after breaking things with the CLI: every fault in force,
// and a failover the sentinels are in the middle of, each with the verb that undoes it.
const env = tempStateEnv();
const cli = (...argv: string[]) => runCli(['sandbox', ...argv, '--name', 'broken'], env);
const pids = new Set<number>();
const status = async (): Promise<{ text: string; json: SandboxStatus }> => {
  const [text, json] = await Promise.all([cli('status'), cli('status', '--json')]);
  expect(text.code).toBe(0);
  return { text: text.stdout, json: JSON.parse(json.stdout) as SandboxStatus };
};

afterAll(async () => {
  await cli('down');
  await eventually(async () => [...pids].every((p) => !isAlive(p)), 5000);
}, 30_000);

describe('sandbox status: faults in force and a failover in progress', () => {
  it('names latency, a partition, a moved clock and a replication stall, until each is undone', async () => {
    expect((await cli('up', '--topology', 'sentinel', '--proxy', '--fake-clock')).code).toBe(0);
    for (const n of readState(join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes', 'broken'))!.nodes) pids.add(n.pid);
    expect((await status()).json.faults).toEqual([]);

    for (const verb of [['latency', 'n2', '200ms'], ['partition', 'n3', '--hold'], ['clock', 'n2', '+10s'], ['stall-replication', 'n3', '--for', '60s']]) {
      expect((await cli(...verb)).code).toBe(0);
    }
    const { text, json } = await status();
    expect(text).toContain('fault: n2 200 ms slower per round trip through its proxy; undo: redlock-cli sandbox heal n2 --name broken');
    expect(text).toContain('fault: n3 partitioned from its clients (connections held open, nothing forwarded); undo: redlock-cli sandbox heal n3 --name broken');
    expect(text).toMatch(/fault: n2 clock \+(9\.\d|10\.\d) s off real time, running x1 \(libfaketime\)/);
    expect(text).toMatch(/fault: n3 applies no replication \(stall-replication\) for \d+(\.\d)? s more; undo: redlock-cli sandbox heal n3 --name broken/);
    expect(json.faults.map((f) => `${f.kind} ${f.node}`).sort()).toEqual(['clock n2', 'latency n2', 'partition n3', 'replication-stall n3']);
    expect(json.faults.find((f) => f.kind === 'latency')).toMatchObject({ ms: 200 });

    for (const node of ['n2', 'n3']) expect((await cli('heal', node)).code).toBe(0);
    expect((await status()).json.faults.map((f) => f.kind)).toEqual(['clock']);
  }, 60_000);

  it('shows the sentinels failing the primary over, and no failover once a replica is promoted', async () => {
    // With both replicas paused the sentinels see the primary down but have no one to promote:
    // the failover stays in progress until they answer again.
    for (const node of ['n2', 'n3', 'n1']) expect((await cli('pause', node)).code).toBe(0);
    let seen: { text: string; json: SandboxStatus } | undefined;
    await eventually(async () => {
      seen = await status();
      return seen.json.failover?.flags.includes('o_down') === true;
    }, 20_000);
    expect(seen!.json.failover).toMatchObject({ by: 'sentinel', primary: 'n1' });
    expect(seen!.text).toMatch(/\n {2}failover in progress: the sentinels see n1 down \((o_down, s_down|o_down)\); /);
    expect(seen!.text).toContain('fault: n1 paused (SIGSTOP): it accepts connections and answers nothing; undo: redlock-cli sandbox resume n1 --name broken');

    for (const node of ['n2', 'n3']) expect((await cli('resume', node)).code).toBe(0);
    await eventually(async () => {
      seen = await status();
      return seen.json.failover === undefined && seen.json.master?.node !== 'n1' && seen.json.master?.node !== undefined;
    }, 30_000);
    expect(seen!.text).not.toContain('failover in progress');
    expect(seen!.json.faults.map((f) => `${f.kind} ${f.node}`)).toEqual(['paused n1', 'clock n2']);
  }, 60_000);
});
