import { describe, expect, it } from 'vitest';
import { DEFAULT_REDLOCK_NODES } from '../../src/sandbox/index.js';
import { probe, useSandbox } from '../helpers/sandbox.js';

const fx = useSandbox({ topology: 'redlock', name: 'redlock' });

describe('sandbox redlock', () => {
  it('starts 5 independent primaries by default, on distinct ports', async () => {
    const { sandbox } = fx;
    expect(DEFAULT_REDLOCK_NODES).toBe(5);
    expect(sandbox.nodes.map((n) => n.name)).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    expect(new Set(sandbox.nodes.map((n) => n.port)).size).toBe(5);
    for (const node of sandbox.nodes) {
      const info = String(await fx.client(node.port).info('replication'));
      expect(info).toMatch(/role:master/);
      expect(info).toMatch(/connected_slaves:0/);
    }
    expect(sandbox.urls.cliArgs).toEqual(['--kind', 'redlock', '--nodes', sandbox.nodes.map((n) => `redis://127.0.0.1:${n.port}`).join(',')]);
  });

  it('a write to one node is not on the others', async () => {
    const [n1, n2] = fx.sandbox.nodes;
    await fx.client(n1!.port).set('only-on-n1', '1');
    expect(await fx.client(n2!.port).exists('only-on-n1')).toBe(0);
  });

  it('killing a minority leaves the majority answering', async () => {
    const { sandbox } = fx;
    await sandbox.kill('n1');
    await sandbox.kill('n2');
    const answers = await Promise.all(sandbox.nodes.map((n) => probe(n.port)));
    expect(answers).toEqual(['refused', 'refused', 'PONG', 'PONG', 'PONG']);
    const status = await sandbox.status();
    expect(status.nodes.map((n) => n.state)).toEqual(['killed', 'killed', 'running', 'running', 'running']);
  });

  it('restart of a standalone node never makes it a replica, and failover is refused', async () => {
    const { sandbox } = fx;
    const result = await sandbox.restart('n1');
    expect(result.message).not.toMatch(/replicates/);
    expect((await sandbox.status()).nodes[0]).toMatchObject({ role: 'primary', state: 'running' });
    await expect(sandbox.failover()).rejects.toThrow(/this one is redlock/);
  });
});
