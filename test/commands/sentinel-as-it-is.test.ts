import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { isAlive } from '../helpers/sandbox.js';

// Sentinel as it really is, on a real Sentinel sandbox: the redis-sentinel:// URL `sandbox up`
// prints is accepted by -u, and inspect says whether each replica has the key (read there),
// where an offset difference would show Sentinel's own traffic as "bytes behind".

const env = tempStateEnv();
const pids: number[] = [];
let sentinelUrl = '';
let replicas: string[] = [];

beforeAll(async () => {
  const up = await runCli(['sandbox', 'up', '--topology', 'sentinel', '--name', 'sent', '--json'], env);
  expect(up.code).toBe(0);
  const state = JSON.parse(up.stdout) as { nodes: { pid: number; role: string; port: number }[]; urls: { sentinel: { url: string } } };
  pids.push(...state.nodes.map((n) => n.pid));
  sentinelUrl = state.urls.sentinel.url;
  replicas = state.nodes.filter((n) => n.role === 'replica').map((n) => `127.0.0.1:${n.port}`);
}, 60_000);
afterAll(async () => {
  await runCli(['sandbox', 'down', '--all'], env);
  expect(pids.filter(isAlive)).toEqual([]);
}, 30_000);

describe('a Sentinel sandbox through its printed URL', () => {
  it('-u redis-sentinel://... reaches the master; inspect says each replica has the key', async () => {
    expect(sentinelUrl).toMatch(/^redis-sentinel:\/\/127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+)+#mymaster$/);
    const acquired = await runCli(['-u', sentinelUrl, 'acquire', 'pay', '--lease', '1m'], env);
    expect(acquired).toMatchObject({ code: 0, stdout: expect.stringContaining('acquired "pay"') });
    // Replication is asynchronous: poll (bounded) until both replicas report having it.
    let replicaStates: { replica: string; hasKey: boolean | null }[] = [];
    for (let i = 0; i < 50; i++) {
      const r = await runCli(['inspect', 'pay', '-u', sentinelUrl, '--json'], env);
      replicaStates = (JSON.parse(r.stdout) as [{ replicas: { replica: string; hasKey: boolean | null }[] }])[0].replicas;
      if (replicaStates.every((s) => s.hasKey === true)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(replicaStates.map((s) => s.replica).sort()).toEqual([...replicas].sort());
    expect(replicaStates.every((s) => s.hasKey === true)).toBe(true);
    const text = await runCli(['inspect', 'pay', '--sandbox', 'sent'], env);
    for (const replica of replicas) expect(text.stdout).toMatch(new RegExp(`${replica.replace(/\./g, '\\.')} has it \\(TTL \\d`));
    expect(text.stdout).not.toContain('bytes behind');
  });
});
