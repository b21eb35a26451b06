import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

// bsm/redislock's client side, written from v0.10.0's redislock.go and obtain.lua / release.lua:
// no package of this machine carries the Go library, so the tests play its wire effect with plain
// commands on their own connection. ObtainMulti: MSETNX every key to token+metadata, then PEXPIRE
// each; refused while any key exists under another token; retried by its RetryStrategy
// (LinearBackoff here). Release: only when every key holds the whole value, DEL them all.

/** Its default token: 16 random bytes, URL-safe base64 without padding. */
export const bsmToken = (): string => randomBytes(16).toString('base64url');

/** One ObtainMulti attempt: true when it took every key. */
export async function bsmObtainOnce(
  redis: Redis,
  keys: readonly string[],
  value: string,
  ttlMs: number,
): Promise<boolean> {
  if ((await redis.msetnx(...keys.flatMap((k) => [k, value]))) !== 1) return false;
  for (const key of keys) await redis.pexpire(key, ttlMs);
  return true;
}

/** ObtainMulti with LinearBackoff(backoffMs) and a bounded number of retries. */
export async function bsmObtain(
  redis: Redis,
  keys: readonly string[],
  value: string,
  ttlMs: number,
  backoffMs: number,
  retries: number,
): Promise<boolean> {
  for (let i = 0; i <= retries; i++) {
    if (await bsmObtainOnce(redis, keys, value, ttlMs)) return true;
    await new Promise((r) => setTimeout(r, backoffMs));
  }
  return false;
}

/** Lock.Release: compare every key's value, then DEL them all. */
export async function bsmRelease(redis: Redis, keys: readonly string[], value: string): Promise<boolean> {
  const values = await redis.mget(...keys);
  if (values.some((v) => v !== value)) return false;
  await redis.del(...keys);
  return true;
}
