import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { controlSocketPath } from '../../src/sandbox/proxy-control.js';
import { proxyHook } from '../../src/sandbox/proxy-hook.js';
import { eventually, isAlive, probe, useSandbox } from '../helpers/sandbox.js';

let proxyPid = 0;
let sandboxDir = '';
// Registered before useSandbox, so it runs after the sandbox's own afterAll has stopped it.
afterAll(async () => {
  expect(proxyPid).toBeGreaterThan(0);
  await eventually(async () => !isAlive(proxyPid), 2000);
  expect(existsSync(controlSocketPath(sandboxDir))).toBe(false);
});

const fx = useSandbox({ topology: 'replicated', proxy: proxyHook() });

const portOf = (url: string | undefined): number => Number(new URL(url!).port);

/** Median PING round trip through a client, in ms. */
async function roundTrip(port: number): Promise<number> {
  const c = fx.client(port);
  await c.ping();
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    await c.ping();
    times.push(performance.now() - t0);
  }
  c.disconnect();
  return times.sort((a, b) => a - b)[3]!;
}

describe('sandbox up --proxy and the latency / partition / heal verbs', () => {
  it('puts one proxy process in front of every redis node and advertises the proxy ports', async () => {
    const { sandbox } = fx;
    sandboxDir = sandbox.dir;
    const pids = new Set(sandbox.nodes.map((n) => n.proxy?.pid));
    expect(pids.size).toBe(1);
    proxyPid = [...pids][0]!;
    expect(readFileSync(`/proc/${proxyPid}/cmdline`, 'utf8')).toContain(sandbox.dir);
    for (const node of sandbox.nodes) {
      const url = sandbox.urls.nodes[node.name];
      expect(portOf(url)).toBe(node.proxy!.port);
      expect(node.proxy!.port).not.toBe(node.port);
      expect(await probe(node.proxy!.port)).toBe('PONG');
    }
    const status = await sandbox.status();
    expect(status.nodes.filter((n) => n.proxyPort !== undefined)).toHaveLength(3);
  });

  it('latency n1 80ms slows clients of the proxy only, and heal takes it off', async () => {
    const n1 = await fx.sandbox.node('n1');
    const result = await fx.sandbox.latency('n1', 80);
    expect(result.message).toMatch(/n1 is 80 ms slower per round trip/);
    expect(result.proxy?.mode).toEqual({ kind: 'latency', ms: 80 });
    // Precision is proxy.test.ts's business; here: the proxy's clients pay it, the node's own port does not.
    const slow = await roundTrip(n1.proxy!.port);
    expect(slow).toBeGreaterThanOrEqual(80);
    expect(slow).toBeLessThan(120);
    expect(await roundTrip(n1.port)).toBeLessThan(40);
    expect((await fx.sandbox.heal('n1')).message).toMatch(/healed n1/);
    expect(await roundTrip(n1.proxy!.port)).toBeLessThan(40);
  });

  it('partition n2 fails its clients while the node itself keeps replicating; heal restores', async () => {
    const n2 = await fx.sandbox.node('n2');
    const before = fx.client(n2.proxy!.port);
    await before.ping();
    const result = await fx.sandbox.partition('n2');
    expect(result.message).toMatch(/partitioned n2: connections through .* were reset/);
    await expect(before.ping()).rejects.toThrow();
    expect(await probe(n2.proxy!.port)).toBe('refused');
    // Only clients are cut off: the replica still follows its primary on its own port.
    await fx.client((await fx.sandbox.node('n1')).port).set('during-partition', '1');
    await eventually(async () => (await fx.client(n2.port).get('during-partition')) === '1');
    const healed = await fx.sandbox.heal('n2');
    expect(healed.message).toMatch(/healed n2/);
    expect(healed.message).toMatch(/n2 applies writes again/);
    expect(await probe(n2.proxy!.port)).toBe('PONG');
  });

  it('partition --hold leaves connections open and silent; heal delivers the answer', async () => {
    const n3 = await fx.sandbox.node('n3');
    const c = fx.client(n3.proxy!.port);
    await c.ping();
    await fx.sandbox.partition('n3', { hold: true });
    expect(await probe(n3.proxy!.port)).toBe('timeout');
    const pending = c.ping();
    await new Promise((r) => setTimeout(r, 100));
    await fx.sandbox.heal('n3');
    expect(await pending).toBe('PONG');
  });

  it('refuses nodes that are not in the sandbox', async () => {
    await expect(fx.sandbox.latency('n9', 10)).rejects.toThrow(/has no node "n9"/);
  });
});

describe('an in-process proxy (library callers whose sandbox never outlives them)', () => {
  let socket = '';
  afterAll(() => {
    expect(socket).not.toBe('');
    expect(existsSync(socket)).toBe(false);
  });
  const inProcess = useSandbox({ topology: 'single', name: 'inproc', proxy: proxyHook({ mode: 'in-process' }) });

  it('records no pid, answers the verbs, and closes with the sandbox', async () => {
    const n1 = await inProcess.sandbox.node('n1');
    socket = controlSocketPath(inProcess.sandbox.dir);
    expect(n1.proxy).toEqual({ port: expect.any(Number) });
    await inProcess.sandbox.partition('n1');
    expect(await probe(n1.proxy!.port)).toBe('refused');
    await inProcess.sandbox.heal('n1');
    expect(await probe(n1.proxy!.port)).toBe('PONG');
  });
});

describe('a sandbox started without --proxy', () => {
  const plain = useSandbox({ topology: 'single', name: 'noproxy' });

  it('refuses latency and partition with how to get a proxy; heal still ends a stall', async () => {
    await expect(plain.sandbox.latency('n1', 10)).rejects.toThrow(/sandbox "noproxy" was started without it: start it again with one: redlock-cli sandbox down --name noproxy, then redlock-cli sandbox up --topology single --proxy --name noproxy$/);
    await expect(plain.sandbox.partition('primary')).rejects.toThrow(/up --topology single --proxy --name noproxy/);
    expect((await plain.sandbox.heal('n1')).message).toBe('n1 applies writes again (CLIENT UNPAUSE ends a stall-replication)');
  });
});
