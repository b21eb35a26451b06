import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { OpenLockEnv } from '../../src/locks/env.js';
import { tokenLock } from '../../src/locks/token.js';
import { owner, rawClient } from '../helpers/lock-env.js';
import type { RedisServer } from '../helpers/redis-server.js';

// A deadlock and its healthy twin on a real server, for the tests of what reports one (`export`'s
// findings counter, `trace --fail-on liveness`): a token lock set without a TTL by a client that
// then disconnects while another waits, and the same wait behind a holder with a lease that
// releases. Each wait is measured in the server's own TIME, past the deadlock's bound (1 s).

/** Waits measured against the deadlock's bound of 1 s, with room for the trace's rounding. */
const WAIT_MS = 1500;

async function serverMs(raw: Redis): Promise<number> {
  const [s, us] = await raw.time();
  return Number(s) * 1000 + Number(us) / 1000;
}

/** A waiter refused `key` until the server's clock moved WAIT_MS past its first refusal; each refusal checked. */
async function refusedFor(env: OpenLockEnv, raw: Redis, key: string, waiter: string): Promise<void> {
  const first = await serverMs(raw);
  for (let tries = 0; tries < 200; tries++) {
    expect((await tokenLock.tryAcquire(env, { key, owner: waiter, leaseMs: 10_000 })).acquired).toBe(false);
    if ((await serverMs(raw)) - first > WAIT_MS) return;
    await sleep(100);
  }
  throw new Error(`${key}: 200 refusals did not span ${WAIT_MS} ms of the server's time`);
}

/** `key` set with no TTL by a client that disconnects; then owner(4) is refused it for WAIT_MS. */
export async function stageDeadlock(server: RedisServer, env: OpenLockEnv, raw: Redis, key: string): Promise<void> {
  const dead = rawClient(server);
  expect(await dead.set(key, owner(3), 'NX')).toBe('OK');
  await dead.quit();
  await refusedFor(env, raw, key, owner(4));
}

/** The twin: owner(3) holds `key` with a lease, owner(4) is refused it for WAIT_MS, then owner(3) releases and owner(4) takes it. */
export async function stageLongWait(env: OpenLockEnv, raw: Redis, key: string): Promise<void> {
  const holder = { key, owner: owner(3), leaseMs: 10_000 };
  expect((await tokenLock.tryAcquire(env, holder)).acquired).toBe(true);
  await refusedFor(env, raw, key, owner(4));
  expect(await tokenLock.release(env, holder)).toBe('released');
  expect((await tokenLock.tryAcquire(env, { ...holder, owner: owner(4) })).acquired).toBe(true);
}
