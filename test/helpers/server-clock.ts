import type { Redis } from 'ioredis';
import { expect } from 'vitest';

// Leases measured on the server's own clock. "PTTL > 4900 right after setting 5000" assumes this
// process reads the key within 100 ms, which a loaded machine does not promise. The server does:
// a key's absolute expiry (PEXPIRETIME) must lie `leaseMs` after some moment between a TIME read
// before the command and one after it, however late this process ran in between. A wrong lease
// (the requester's instead of the holder's, a default, none) still lands outside that window.

/** The server's clock now, in ms since the epoch (TIME, truncated like the server's own mstime). */
export async function serverNow(raw: Redis): Promise<number> {
  const [seconds, micros] = await raw.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Asserts `key` was given a lease of `leaseMs` by a command run after the server's clock read `since`. */
export async function expectLeaseSince(raw: Redis, key: string, leaseMs: number, since: number): Promise<void> {
  const expiresAt = await raw.pexpiretime(key);
  const now = await serverNow(raw);
  expect(expiresAt, `${key} expires at`).toBeGreaterThanOrEqual(since + leaseMs);
  expect(expiresAt, `${key} expires at`).toBeLessThanOrEqual(now + leaseMs);
}

/**
 * Asserts `reportedMs` is the time `key` had left when it was reported: between a PTTL read
 * before the report (`before`) and one read now. Catches a TTL taken from anywhere else.
 */
export async function expectTtlReported(raw: Redis, key: string, reportedMs: number, before: number): Promise<void> {
  const after = await raw.pttl(key);
  expect(reportedMs, `the TTL reported for ${key}`).toBeLessThanOrEqual(before);
  expect(reportedMs, `the TTL reported for ${key}`).toBeGreaterThanOrEqual(after);
}
