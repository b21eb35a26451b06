import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { startSentinel, type SentinelTopology } from '../helpers/topologies.js';

// Through Sentinel, inspect reads the master it names (the lock is taken the same way).

let topo: SentinelTopology;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  topo = await startSentinel();
  env = tempStateEnv();
}, 30_000);
afterAll(async () => {
  await topo?.stop();
});

describe('inspect through Sentinel', () => {
  it('finds the master and decodes the lock taken there', async () => {
    const args = ['--sentinel', `127.0.0.1:${topo.sentinelPort}`, '--master-name', topo.masterName];
    const taken = await runCli(['acquire', 'orders', ...args, '--json'], env);
    const r = await runCli(['inspect', 'orders', ...args, '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({ key: 'orders', kind: 'reentrant', holders: [expect.objectContaining({ owner: JSON.parse(taken.stdout).owner, count: 1 })] }),
    ]);
  });
});
