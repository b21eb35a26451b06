import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { freePort, startRedis, type RedisServer } from './redis-server.js';

export interface Topology {
  readonly nodes: readonly RedisServer[];
  stop(): Promise<void>;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Which of startCluster's three nodes serves `key`: the slots are split in thirds. */
export function clusterNodeOf(key: string): number {
  const slot = calculateSlot(key);
  return slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2;
}

/** Three cluster-enabled primaries with the 16384 slots split between them, formed by MEET. */
export async function startCluster(): Promise<Topology> {
  const dirs: string[] = [];
  const nodes: RedisServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'redlock-cluster-'));
      dirs.push(dir);
      nodes.push(await startRedis({ args: ['--cluster-enabled', 'yes', '--dir', dir, '--cluster-node-timeout', '2000'] }));
    }
    const clients = nodes.map((n) => new Redis({ port: n.port, host: '127.0.0.1' }));
    const ranges = [[0, 5460], [5461, 10922], [10923, 16383]] as const;
    await Promise.all(clients.map((c, i) => c.call('CLUSTER', 'ADDSLOTSRANGE', ranges[i]![0], ranges[i]![1])));
    for (const node of nodes.slice(1)) await clients[0]!.call('CLUSTER', 'MEET', '127.0.0.1', node.port);
    await until('cluster_state:ok on every node', async () => {
      const infos = await Promise.all(clients.map((c) => c.call('CLUSTER', 'INFO') as Promise<string>));
      return infos.every((info) => info.includes('cluster_state:ok') && info.includes('cluster_known_nodes:3'));
    });
    clients.forEach((c) => c.disconnect());
    return { nodes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface SentinelTopology extends Topology {
  /** The first sentinel's port. */
  readonly sentinelPort: number;
  /** Every sentinel, in start order (the first is sentinelPort). */
  readonly sentinels: readonly { readonly port: number; readonly pid: number }[];
  readonly masterName: string;
}

export interface SentinelOptions {
  readonly password?: string;
  /** How many sentinels watch the primary (default 1); each has quorum 1. */
  readonly sentinels?: number;
}

/** One primary watched by one sentinel or more (quorum 1): enough to prove we discover the master through them. */
export async function startSentinel(options: SentinelOptions = {}): Promise<SentinelTopology> {
  const primary = await startRedis(options.password ? { password: options.password } : {});
  const dir = mkdtempSync(join(tmpdir(), 'redlock-sentinel-'));
  const children: ChildProcess[] = [];
  const sentinels: { port: number; pid: number }[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    await primary.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
  try {
    for (let i = 0; i < (options.sentinels ?? 1); i++) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${i}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor mymaster 127.0.0.1 ${primary.port} 1`,
          ...(options.password ? [`sentinel auth-pass mymaster ${options.password}`] : []),
          'sentinel down-after-milliseconds mymaster 1000',
          '',
        ].join('\n'),
      );
      const child = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
      children.push(child);
      sentinels.push({ port, pid: child.pid! });
    }
    for (const { port } of sentinels) {
      const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50 });
      probe.on('error', () => undefined);
      try {
        await until(`the sentinel on ${port} to know the master`, async () => {
          const addr = (await probe.call('SENTINEL', 'get-master-addr-by-name', 'mymaster')) as string[] | null;
          return addr?.[1] === String(primary.port);
        });
      } finally {
        probe.disconnect();
      }
    }
    return { nodes: [primary], sentinelPort: sentinels[0]!.port, sentinels, masterName: 'mymaster', stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The certificate files a TLS-only sentinel serves with, presents to the master, and trusts. */
export interface SentinelTlsFiles {
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
}

/**
 * One sentinel on a TLS port only (no plain port), watching a TLS-only primary over TLS
 * (`tls-replication yes`; its certificate is its client certificate too), with clients verified
 * (`tls-auth-clients yes`). Resolves once it names the primary; stop() kills it by pid.
 */
export async function startTlsSentinel(primaryTlsPort: number, tls: SentinelTlsFiles): Promise<{ readonly port: number; readonly pid: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-tls-sentinel-'));
  const port = await freePort();
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(
    conf,
    [
      'port 0',
      `tls-port ${port}`,
      `tls-cert-file ${tls.cert}`,
      `tls-key-file ${tls.key}`,
      `tls-ca-cert-file ${tls.ca}`,
      'tls-auth-clients yes',
      'tls-replication yes',
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor mymaster 127.0.0.1 ${primaryTlsPort} 1`,
      'sentinel down-after-milliseconds mymaster 1000',
      '',
    ].join('\n'),
  );
  const child = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50, tls: { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) } });
  probe.on('error', () => undefined);
  try {
    await until(`the TLS sentinel on ${port} to know the master`, async () => {
      const addr = (await probe.call('SENTINEL', 'get-master-addr-by-name', 'mymaster')) as string[] | null;
      return addr?.[1] === String(primaryTlsPort);
    });
    return { port, pid: child.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  } finally {
    probe.disconnect();
  }
}
