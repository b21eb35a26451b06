import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type SandboxHandle, type StartOptions } from '../../src/sandbox/index.js';
import { isAlive, processesUnder } from '../../src/sandbox/procfs.js';

export { isAlive };

export interface SandboxFixture {
  readonly sandbox: SandboxHandle;
  /** A client for a node port that fails instead of retrying; closed in afterAll. */
  client(port: number, extra?: RedisOptions): Redis;
}

/**
 * One sandbox per test file, in its own temp dir, stopped in afterAll also when tests fail; afterAll
 * then fails the file if any redis-server the sandbox ever ran is still alive (checked by pid).
 */
export function useSandbox(opts: Omit<StartOptions, 'dir' | 'persist'>, timeoutMs = 30_000): SandboxFixture {
  const clients: Redis[] = [];
  const pids = new Set<number>();
  let dir = '';
  const fx = {
    sandbox: undefined as unknown as SandboxHandle,
    client(port: number, extra: RedisOptions = {}): Redis {
      const c = new Redis({ port, host: '127.0.0.1', retryStrategy: () => null, maxRetriesPerRequest: 0, ...extra });
      c.on('error', () => undefined);
      clients.push(c);
      return c;
    },
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'redlock-sandbox-'));
    fx.sandbox = await startSandbox({ ...opts, dir });
  }, timeoutMs);
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    if (fx.sandbox) {
      // Restarts replace pids: the state has the newest; earlier ones were killed by the restart.
      for (const n of fx.sandbox.nodes) pids.add(n.pid);
      await fx.sandbox.stop();
    }
    const left = [...[...pids].filter(isAlive), ...(dir ? processesUnder(dir) : [])];
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) throw new Error(`redis-server pids still running after stop(): ${left.join(', ')}`);
  }, timeoutMs);
  return fx;
}

export type Probe = 'PONG' | 'refused' | 'timeout';

/**
 * PING on a raw socket: what a client sees of a node (answers, refuses, or hangs). A hang is
 * judged only after the I/O that is already waiting has been read (setImmediate runs after the
 * poll phase): when this process itself was stalled past the timeout, a PONG that did arrive wins.
 */
export function probe(port: number, timeoutMs = 1000): Promise<Probe> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let settled = false;
    const done = (result: Probe): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => setImmediate(() => done('timeout')));
    socket.once('error', () => done('refused'));
    socket.on('data', (d) => d.toString().includes('PONG') && done('PONG'));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/** Polls until `check` holds (bounded), for effects that land asynchronously. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
