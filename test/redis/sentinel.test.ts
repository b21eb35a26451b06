import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { startSentinel, type SentinelTopology } from '../helpers/topologies.js';

let topo: SentinelTopology;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  topo = await startSentinel({ password: 'sentinel-secret' });
  env = tempStateEnv();
}, 30_000);
afterAll(async () => {
  await topo?.stop();
});

describe('Redis Sentinel', () => {
  it('finds the master through the sentinel and locks on it', async () => {
    const args = ['--sentinel', `127.0.0.1:${topo.sentinelPort}`, '--master-name', 'mymaster', '-u', 'redis://:sentinel-secret@localhost'];
    const r = await runCli(['acquire', 'orders', ...args, '--json'], env);
    expect(r.code).toBe(0);
    const primary = new Redis({ port: topo.nodes[0]!.port, password: 'sentinel-secret' });
    expect(await primary.hgetall('orders')).toEqual({ [JSON.parse(r.stdout).owner]: '1' });
    expect((await runCli(['release', 'orders', ...args], env)).code).toBe(0);
    expect(await primary.exists('orders')).toBe(0);
    primary.disconnect();
  });

  it('--sentinel without --master-name is a usage error; an unknown master exits 3', async () => {
    expect((await runCli(['acquire', 'k', '--sentinel', `127.0.0.1:${topo.sentinelPort}`], env)).code).toBe(2);
    const r = await runCli(['acquire', 'k', '--sentinel', `127.0.0.1:${topo.sentinelPort}`, '--master-name', 'nope'], env);
    expect(r.code).toBe(3); // what it says: the next test
  });

  it('an unknown master name says which masters the sentinels do know, not that they are unreachable', async () => {
    const sentinel = `127.0.0.1:${topo.sentinelPort}`;
    for (const argv of [['acquire', 'k'], ['inspect', 'k']]) {
      const r = await runCli([...argv, '--sentinel', sentinel, '--master-name', 'nope'], env);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`sentinels at ${sentinel} know no master named 'nope'; they know: mymaster`);
      expect(r.stderr).not.toMatch(/unreachable/i);
    }
  });
});
