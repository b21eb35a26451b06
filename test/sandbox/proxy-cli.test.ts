import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { readState } from '../../src/sandbox/state.js';
import type { NodeRecord } from '../../src/sandbox/types.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';
import { eventually, isAlive, probe } from '../helpers/sandbox.js';

// The network / clock / replication verbs as a user types them, each from its own invocation: the
// proxy outlives `up`, and every later verb finds it through the sandbox directory.
const env = tempStateEnv();
const root = join(env.XDG_STATE_HOME!, 'redlock-cli', 'sandboxes');
const cli = (...argv: string[]) => runCli(['sandbox', ...argv, '--name', 'faults'], env);
const node = (name: string): NodeRecord => readState(join(root, 'faults'))!.nodes.find((n) => n.name === name)!;
const pids = new Set<number>();
const clients: Redis[] = [];

function client(port: number): Redis {
  const c = new Redis({ port, host: '127.0.0.1', retryStrategy: () => null, maxRetriesPerRequest: 0 });
  c.on('error', () => undefined);
  clients.push(c);
  return c;
}

afterAll(async () => {
  clients.forEach((c) => c.disconnect());
  const down = await cli('down');
  expect(down.code).toBe(0);
  await eventually(async () => [...pids].every((p) => !isAlive(p)), 2000);
}, 30_000);

describe('redlock-cli sandbox latency / partition / heal / clock / stall-replication', () => {
  it('up --proxy starts one proxy process that outlives up and fronts every node', async () => {
    const up = await cli('up', '--topology', 'replicated', '--proxy', '--json');
    expect(up.code).toBe(0);
    const state = readState(join(root, 'faults'))!;
    for (const n of state.nodes) [n.pid, n.proxy!.pid!].forEach((p) => pids.add(p));
    expect(new Set(state.nodes.map((n) => n.proxy?.pid)).size).toBe(1);
    const out = JSON.parse(up.stdout) as { urls: { nodes: Record<string, string> } };
    expect(out.urls.nodes.n1).toBe(`redis://127.0.0.1:${node('n1').proxy!.port}`);
    expect(await probe(node('n1').proxy!.port)).toBe('PONG');
  });

  it('latency n1 200ms, then heal n1', async () => {
    const latency = await cli('latency', 'n1', '200ms');
    expect(latency).toMatchObject({ code: 0, stderr: '' });
    expect(latency.stdout).toMatch(/^n1 is 200 ms slower per round trip for clients on 127\.0\.0\.1:\d+ \(100 ms each way/);
    const c = client(node('n1').proxy!.port);
    const t0 = performance.now();
    await c.ping();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(200);
    expect((await cli('heal', 'n1')).stdout).toMatch(/^healed n1/);
    const t1 = performance.now();
    await c.ping();
    // Healed: no longer the 200 ms of latency, whatever else delays a round trip.
    expect(performance.now() - t1).toBeLessThan(150);
  });

  it('partition n1 refuses its clients until heal n1', async () => {
    expect((await cli('partition', 'n1')).stdout).toMatch(/^partitioned n1/);
    expect(await probe(node('n1').proxy!.port)).toBe('refused');
    await cli('heal', 'n1');
    expect(await probe(node('n1').proxy!.port)).toBe('PONG');
  });

  it('clock n1 +10s names its method: TTL rewrite, since up started the nodes without libfaketime', async () => {
    const n1 = client(node('n1').port);
    await n1.set('lease', 'a', 'PX', 10_000);
    const clock = await cli('clock', 'n1', '+10s');
    expect(clock.code).toBe(0);
    expect(clock.stdout).toMatch(/^clock \+10\.0 s on n1 emulated by rewriting TTLs \(n1 runs without libfaketime: the sandbox was started without fake clocks \(sandbox up --fake-clock\)\): 1 key\(s\) with a TTL moved, 1 expired now/);
    expect(await n1.exists('lease')).toBe(0);
    const bad = await cli('clock', 'n1', 'soon');
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringMatching(/invalid clock change "soon"/) });
  });

  it('stall-replication n2 --for 2s keeps an acknowledged write off n2 until heal n2', async () => {
    const stall = await cli('stall-replication', 'n2', '--for', '2s');
    expect(stall.code).toBe(0);
    expect(stall.stdout).toMatch(/^stalled replication on n2 for 2\.0 s \(CLIENT PAUSE WRITE\)/);
    const primary = client(node('n1').port);
    await primary.set('lock', 'a');
    expect(await primary.call('WAIT', 1, 10_000)).toBe(1); // n3 is not stalled (WAIT returns on its ack)
    expect(await client(node('n2').port).exists('lock')).toBe(0);
    expect((await cli('heal', 'n2')).stdout).toMatch(/n2 applies writes again \(CLIENT UNPAUSE ends a stall-replication\)/);
    await eventually(async () => (await client(node('n2').port).exists('lock')) === 1);
    const refused = await cli('stall-replication', 'n1');
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringMatching(/n1: stall-replication needs a replica, and this node is a primary/) });
  });
});
