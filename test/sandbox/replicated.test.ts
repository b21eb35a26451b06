import { describe, expect, it } from 'vitest';
import { eventually, probe, useSandbox } from '../helpers/sandbox.js';

const fx = useSandbox({ topology: 'replicated', name: 'replicated' });

describe('sandbox replicated', () => {
  it('is live when up returns: a write reaches both replicas at once', async () => {
    const { sandbox } = fx;
    expect(sandbox.nodes.map((n) => [n.name, n.role, n.replicaOf])).toEqual([
      ['n1', 'primary', undefined],
      ['n2', 'replica', 'n1'],
      ['n3', 'replica', 'n1'],
    ]);
    const primary = fx.client(sandbox.nodes[0]!.port);
    expect(await primary.config('GET', 'repl-diskless-sync')).toEqual(['repl-diskless-sync', 'no']);
    await primary.set('lock', 'a');
    expect(await primary.call('WAIT', 2, 100)).toBe(2);
    for (const replica of sandbox.nodes.slice(1)) expect(await fx.client(replica.port).get('lock')).toBe('a');
    // The readiness probe key is gone: the user gets an empty keyspace (plus our write).
    expect(await primary.keys('*')).toEqual(['lock']);
  });

  it('status reports roles, offsets and lag per replica', async () => {
    const status = await fx.sandbox.status();
    const [n1, n2, n3] = status.nodes;
    expect(n1).toMatchObject({ role: 'primary', state: 'running', keys: 1 });
    for (const replica of [n2, n3]) {
      expect(replica).toMatchObject({ role: 'replica', replicaOf: 'n1', link: 'up', lagBytes: 0 });
      expect(replica!.offset).toBe(n1!.offset);
    }
  });

  it('a paused replica falls behind and status shows the lag', async () => {
    const { sandbox } = fx;
    await sandbox.pause('n3');
    await fx.client(sandbox.nodes[0]!.port).set('while-n3-paused', 'x');
    const status = await sandbox.status();
    expect(status.nodes[2]).toMatchObject({ name: 'n3', state: 'paused' });
    expect(status.nodes[1]).toMatchObject({ name: 'n2', lagBytes: 0 });
    await sandbox.resume('n3');
    await eventually(async () => (await sandbox.status()).nodes[2]!.lagBytes === 0);
  });

  it('failover by kill promotes the most up-to-date replica by hand and repoints the other', async () => {
    const { sandbox } = fx;
    const result = await sandbox.failover({ how: 'kill' });
    expect(result).toMatchObject({ from: 'n1', how: 'kill' });
    expect(['n2', 'n3']).toContain(result.to);
    expect(result.message).toMatch(/promoted with REPLICAOF NO ONE/);
    expect(await probe(sandbox.nodes[0]!.port)).toBe('refused');
    const status = await sandbox.status();
    const promoted = status.nodes.find((n) => n.name === result.to)!;
    const other = status.nodes.find((n) => n.name !== result.to && n.name !== 'n1')!;
    expect(promoted.role).toBe('primary');
    expect(other).toMatchObject({ role: 'replica', replicaOf: result.to });
    // The data written before the failover survived on the promoted replica.
    expect(await fx.client(promoted.port).get('lock')).toBe('a');
  });

  it('restarting the old primary brings it back as a replica of the new one, which resyncs it', async () => {
    const { sandbox } = fx;
    const newPrimary = await sandbox.node('primary');
    expect(newPrimary.name).not.toBe('n1');
    const restarted = await sandbox.restart('n1');
    expect(restarted.message).toContain(`it replicates ${newPrimary.name}, the primary now`);
    await eventually(async () => (await fx.client(restarted.port).get('lock')) === 'a');
    expect((await sandbox.status()).nodes[0]).toMatchObject({ role: 'replica', replicaOf: newPrimary.name });
  });

  it('failover by force demotes the running primary to a replica of the promoted one', async () => {
    const { sandbox } = fx;
    const before = await sandbox.node('primary');
    const result = await sandbox.failover({ how: 'force' });
    expect(result.from).toBe(before.name);
    const status = await sandbox.status();
    expect(status.nodes.filter((n) => n.role === 'primary').map((n) => n.name)).toEqual([result.to]);
    expect(status.nodes.find((n) => n.name === before.name)).toMatchObject({ state: 'running', role: 'replica', replicaOf: result.to });
  });
});
