import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/doctor.js';
import { rawClient } from '../helpers/lock-env.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { runCli, tempStateEnv } from '../helpers/run-cli.js';

// A replica that stops acknowledging (frozen with SIGSTOP) while the primary takes writes: a
// failover now would lose them (scenario S6). doctor reads INFO replication on the primary.

let primary: RedisServer;
let replica: RedisServer;
let raw: Redis;

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const replicaAcked = async (): Promise<boolean> => {
  const info = await raw.info('replication');
  const offset = Number(/master_repl_offset:(\d+)/.exec(info)?.[1]);
  return new RegExp(`slave0:.*state=online,offset=${offset},`).test(info);
};

beforeAll(async () => {
  primary = await startRedis();
  replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  raw = rawClient(primary);
  await raw.flushall(); // startRedis runs in /tmp: a dump.rdb left there by another test would load here
  await until('the replica to catch up', replicaAcked);
});
afterAll(async () => {
  if (replica) process.kill(replica.pid, 'SIGCONT');
  raw?.disconnect();
  await replica?.stop();
  await primary?.stop();
});

const doctor = async () => {
  const r = await runCli(['doctor', '--json'], tempStateEnv({ REDIS_URL: primary.url }));
  return { code: r.code, findings: JSON.parse(r.stdout) as Finding[] };
};

describe('doctor and replicas', () => {
  it('says nothing about a replica that keeps up', async () => {
    expect(await doctor()).toEqual({ code: 0, findings: [] });
  });

  it('warns when a replica falls a megabyte behind, with the setting that refuses writes meanwhile', async () => {
    process.kill(replica.pid, 'SIGSTOP');
    try {
      await raw.set('big', 'x'.repeat(1_200_000)); // the replica cannot acknowledge it
      const { code, findings } = await doctor();
      expect(code).toBe(6);
      expect(findings.map((f) => [f.severity, f.code, f.key, f.node])).toEqual([['warning', 'replica-lag', null, `127.0.0.1:${primary.port}`]]);
      expect(findings[0]!.message).toMatch(new RegExp(`^replica 127\\.0\\.0\\.1:${replica.port} of 127\\.0\\.0\\.1:${primary.port} is \\d{7} bytes behind`));
      expect(findings[0]!.fix).toBe(`redis-cli -h 127.0.0.1 -p ${primary.port} CONFIG SET min-replicas-to-write 1 min-replicas-max-lag 10`);
    } finally {
      process.kill(replica.pid, 'SIGCONT');
    }
    await until('the replica to catch up again', replicaAcked);
    expect((await doctor()).code).toBe(0);
  });
});
