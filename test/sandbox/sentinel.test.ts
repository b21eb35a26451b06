import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { MASTER_NAME } from '../../src/sandbox/index.js';
import { eventually, probe, useSandbox } from '../helpers/sandbox.js';

const fx = useSandbox({ topology: 'sentinel', name: 'sentinel' });

const sentinelPorts = (): number[] => fx.sandbox.nodes.filter((n) => n.role === 'sentinel').map((n) => n.port);

/** What each sentinel answers to SENTINEL get-master-addr-by-name, as ports. */
async function reportedMasters(): Promise<number[]> {
  return Promise.all(
    sentinelPorts().map(async (port) => Number(((await fx.client(port).call('SENTINEL', 'get-master-addr-by-name', MASTER_NAME)) as string[])[1])),
  );
}

describe('sandbox sentinel', () => {
  it('forms with 3 sentinels that agree on n1 and see both replicas and each other', async () => {
    const { sandbox } = fx;
    expect(sandbox.nodes.map((n) => `${n.name}:${n.role}`)).toEqual(['n1:primary', 'n2:replica', 'n3:replica', 's1:sentinel', 's2:sentinel', 's3:sentinel']);
    const n1 = sandbox.nodes[0]!.port;
    expect(await reportedMasters()).toEqual([n1, n1, n1]);
    for (const port of sentinelPorts()) {
      const sentinel = fx.client(port);
      expect(((await sentinel.call('SENTINEL', 'replicas', MASTER_NAME)) as unknown[]).length).toBe(2);
      expect(((await sentinel.call('SENTINEL', 'sentinels', MASTER_NAME)) as unknown[]).length).toBe(2);
    }
    const status = await sandbox.status();
    expect(status.master).toEqual({ name: MASTER_NAME, node: 'n1', agreeing: 3, sentinels: 3 });
    expect(sandbox.urls.sentinel).toEqual({
      hosts: sentinelPorts().map((p) => `127.0.0.1:${p}`),
      masterName: MASTER_NAME,
      url: `redis-sentinel://${sentinelPorts().map((p) => `127.0.0.1:${p}`).join(',')}#${MASTER_NAME}`,
    });
  });

  it('an application connecting through the sentinels reaches the primary', async () => {
    const app = new Redis({ sentinels: sentinelPorts().map((port) => ({ host: '127.0.0.1', port })), name: MASTER_NAME, lazyConnect: true });
    app.on('error', () => undefined);
    try {
      await app.connect();
      await app.set('through-sentinel', '1');
      expect(await fx.client(fx.sandbox.nodes[0]!.port).get('through-sentinel')).toBe('1');
    } finally {
      app.disconnect();
    }
  });

  it('failover by kill: Sentinel promotes a replica within 5 s and every sentinel reports it', async () => {
    const { sandbox } = fx;
    const result = await sandbox.failover({ how: 'kill' });
    expect(result.from).toBe('n1');
    expect(['n2', 'n3']).toContain(result.to);
    expect(result.ms).toBeLessThan(5000);
    expect(await probe(sandbox.nodes[0]!.port)).toBe('refused');
    const to = await sandbox.node(result.to);
    expect(await reportedMasters()).toEqual([to.port, to.port, to.port]);
    expect(await fx.client(to.port).call('ROLE')).toContainEqual('master');
  });

  it('the killed primary restarts as a replica of the new primary', async () => {
    const { sandbox } = fx;
    const primary = await sandbox.node('primary');
    const restarted = await sandbox.restart('n1');
    expect(restarted.message).toContain(`it replicates ${primary.name}, the primary now`);
    await eventually(async () => (await sandbox.status()).nodes[0]!.link === 'up');
  });

  it('failover by pause: the stopped primary is replaced, and answers again once resumed', async () => {
    const { sandbox } = fx;
    // `from` is whichever node Sentinel named primary when the failover began: not compared with
    // an earlier read, since 500 ms down-after-milliseconds lets Sentinel fail over on its own
    // in between on a busy machine.
    const result = await sandbox.failover({ how: 'pause' });
    expect(result.to).not.toBe(result.from);
    expect(result.ms).toBeLessThan(5000);
    const before = await sandbox.node(result.from);
    expect(await probe(before.port)).toBe('timeout');
    expect((await sandbox.status()).nodes.find((n) => n.name === before.name)!.state).toBe('paused');
    await sandbox.resume(before.name);
    expect(await probe(before.port)).toBe('PONG');
  });

  it('failover by force (SENTINEL FAILOVER) while the primary keeps running', async () => {
    const { sandbox } = fx;
    const result = await sandbox.failover({ how: 'force' });
    expect(result.to).not.toBe(result.from);
    const status = await sandbox.status();
    expect(status.master).toMatchObject({ node: result.to, agreeing: 3 });
    expect(status.nodes.find((n) => n.name === result.from)!.state).toBe('running');
  });

  it('a killed sentinel refuses connections; the others still agree', async () => {
    const { sandbox } = fx;
    await sandbox.kill('s3');
    expect(await probe(sandbox.nodes.find((n) => n.name === 's3')!.port)).toBe('refused');
    expect((await sandbox.status()).master).toMatchObject({ agreeing: 2, sentinels: 3 });
    await expect(sandbox.restart('s3', { amnesia: true })).rejects.toThrow(/sentinel holds no keys/);
    await sandbox.restart('s3');
    await eventually(async () => (await sandbox.status()).master?.agreeing === 3);
  });
});
