import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ProxyHook, ProxyRecord } from '../../src/sandbox/index.js';
import { isAlive, probe, useSandbox } from '../helpers/sandbox.js';

// A stand-in for the TCP fault proxy: a plain forwarder in its own process, with the sandbox dir
// in its command line, so `stop()` can prove the pid is the sandbox's before killing it.
const FORWARDER = `
const net = require('node:net');
const [port] = process.argv.slice(1);
const server = net.createServer((c) => {
  const u = net.connect(Number(port), '127.0.0.1');
  c.pipe(u).pipe(c);
  c.on('error', () => u.destroy());
  u.on('error', () => c.destroy());
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;

const started: ProxyRecord[] = [];
const forwarder: ProxyHook = {
  start: (target) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', FORWARDER, String(target.port), target.dir], { stdio: ['ignore', 'pipe', 'ignore'] });
      child.once('error', reject);
      child.stdout!.once('data', (d: Buffer) => {
        const record = { port: Number(d.toString().trim()), pid: child.pid! };
        started.push(record);
        resolve(record);
      });
    }),
};

const fx = useSandbox({ topology: 'replicated', name: 'hooks', proxy: forwarder, nodeEnv: { n2: { MALLOC_CONF: 'narenas:2' } } });

describe('sandbox plug-in points', () => {
  it('a proxy hook sits in front of every redis node: URLs and status use its port', async () => {
    const { sandbox } = fx;
    expect(sandbox.nodes.map((n) => n.proxy?.port)).toEqual(started.map((p) => p.port));
    for (const node of sandbox.nodes) {
      expect(sandbox.urls.nodes[node.name]).toBe(`redis://127.0.0.1:${node.proxy!.port}`);
      expect(await probe(node.proxy!.port)).toBe('PONG');
    }
    expect(sandbox.urls.primary).toBe(`redis://127.0.0.1:${sandbox.nodes[0]!.proxy!.port}`);
    expect((await sandbox.status()).nodes.map((n) => n.proxyPort)).toEqual(started.map((p) => p.port));
  });

  it('nodeEnv starts a node with extra environment from the beginning', async () => {
    const n2 = await fx.sandbox.node('n2');
    expect(n2.env).toEqual({ MALLOC_CONF: 'narenas:2' });
    expect(String(await fx.client(n2.port).call('MEMORY', 'MALLOC-STATS'))).toMatch(/opt\.narenas: 2\b/);
  });

  it('stop() also kills proxy processes recorded with a pid', async () => {
    expect(started.map((p) => isAlive(p.pid!))).toEqual([true, true, true]);
    await fx.sandbox.stop();
    expect(started.map((p) => isAlive(p.pid!))).toEqual([false, false, false]);
  });
});
