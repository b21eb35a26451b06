import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnreachableError } from '../../src/core/errors.js';
import { waitReplicationLive } from '../../src/sandbox/form-replication.js';
import { freePort, startRedis, type RedisServer } from '../helpers/redis-server.js';

// A replica that never links: its primary's port has nothing listening.
describe('waitReplicationLive', () => {
  let primary: RedisServer;
  let replica: RedisServer;
  let deadPort: number;
  const dir = mkdtempSync(join(tmpdir(), 'redlock-replication-wait-'));
  const log = join(dir, 'replica.log');
  beforeAll(async () => {
    deadPort = await freePort();
    primary = await startRedis({ args: ['--repl-diskless-sync', 'no'] });
    replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(deadPort)] });
  });
  afterAll(async () => {
    await replica?.stop();
    await primary?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives up at its bound and says where each replica got to, with the end of its log', async () => {
    writeFileSync(log, '123:S 25 Nov 2026 18:00:00.000 * Connecting to MASTER 127.0.0.1:1\n123:S 25 Nov 2026 18:00:00.001 # Error condition on socket for SYNC: Connection refused\n');
    const err = await waitReplicationLive(primary.port, [{ port: replica.port, log }], { linkTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreachableError);
    expect((err as Error).message).toBe(
      `timed out after 300 ms waiting for 1 replica(s) to link to the primary on port ${primary.port}: ` +
        `127.0.0.1:${replica.port} link down (log: Connecting to MASTER 127.0.0.1:1 | Error condition on socket for SYNC: Connection refused)`,
    );
  });

  it('names a node that is not a replica at all', async () => {
    const err = await waitReplicationLive(replica.port, [{ port: primary.port }], { linkTimeoutMs: 100 }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(new RegExp(`: 127\\.0\\.0\\.1:${primary.port} link missing \\(role master\\)$`));
  });
});
