import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { OpenLockEnv } from '../../src/locks/env.js';
import { rawClient, testEnv } from './lock-env.js';
import { startRedis, type RedisServer } from './redis-server.js';

export interface LockServerFixture {
  readonly server: RedisServer;
  /** The lock environment under test (long-lived connection). */
  readonly env: OpenLockEnv;
  /** A plain client for arranging and asserting raw state. */
  readonly raw: Redis;
}

/**
 * One redis-server for the whole test file, a lock environment and a raw client on it, and an
 * empty keyspace before every test. Everything is stopped in afterAll, also when tests fail.
 */
export function useLockServer(): LockServerFixture {
  const fx = {} as { server: RedisServer; env: OpenLockEnv; raw: Redis };
  beforeAll(async () => {
    fx.server = await startRedis();
    fx.env = await testEnv(fx.server);
    fx.raw = rawClient(fx.server);
  });
  afterAll(async () => {
    fx.raw?.disconnect();
    await fx.env?.close();
    await fx.server?.stop();
  });
  beforeEach(async () => {
    await fx.raw.flushall();
  });
  return fx;
}
