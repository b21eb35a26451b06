import type { TokenLibrary } from '../../src/core/decode/token-library.js';

// Application strings in every shape the recogniser knows as a token lock's value (issue 24): a
// session id is a UUID, a digest is 32 hex, a salt is base64 of 16 bytes. With a TTL they read as
// token locks; without one, never. Shared by the pure table (decode-token-shapes) and the
// command tables that run them against a real Redis.

/** 100-ns intervals between the UUID epoch (1582-10-15) and the Unix epoch. */
const UUID_EPOCH_OFFSET = 122_192_928_000_000_000n;

/** `uuid.uuid1().hex` as Python makes it at `ms` (what redis-py stores). */
export function uuid1Hex(ms: number, node = '02fc00000001'): string {
  const ticks = BigInt(ms) * 10_000n + UUID_EPOCH_OFFSET;
  const hex = (n: bigint, width: number) => n.toString(16).padStart(width, '0');
  const low = hex(ticks & 0xffff_ffffn, 8);
  const mid = hex((ticks >> 32n) & 0xffffn, 4);
  const high = hex(((ticks >> 48n) & 0x0fffn) | 0x1000n, 4);
  return `${low}${mid}${high}9a7e${node}`;
}

export interface TokenShape {
  /** What the value is, as a row name. */
  readonly shape: string;
  readonly key: string;
  /** The value; `nowMs` is the clock it is judged at (a uuid1 is redis-py only near it). */
  readonly value: (nowMs: number) => string;
  /** The library a TTL'd copy is recognised as; undefined when even a TTL'd copy is not a token lock. */
  readonly library?: TokenLibrary;
  /** The info notes inspect gives a TTL'd copy (what is normal for that library's locks). */
  readonly notes?: readonly string[];
}

const UUID = '3f2a6c1e-8b4d-4e2a-9c1f-7d5e6b4a3c21';

export const TOKEN_SHAPES: readonly TokenShape[] = [
  { shape: 'a UUID under prefix: (Spring)', key: 'user:42:session', value: () => UUID, library: 'spring', notes: ['spring-lock'] },
  { shape: 'a UUID under mutex: (redis-semaphore)', key: 'mutex:report', value: () => UUID, library: 'redis-semaphore' },
  { shape: 'an MD5: 32 hex (node-redlock)', key: 'file:abc:md5', value: () => '5f4dcc3b5aa765d61d8327deb882cf99', library: 'node-redlock' },
  { shape: 'a uuid1 hex (redis-py)', key: 'req:7:trace', value: (now) => uuid1Hex(now), library: 'redis-py' },
  { shape: 'base64 of 16 bytes (redsync)', key: 'cfg:salt', value: () => 'q83vEjRWeJq83vEjRWeJqw==', library: 'redsync' },
  { shape: 'any value under a lock-like name (hand-written)', key: 'jobs:lease', value: () => 'host-7:1234', library: 'unknown' },
  { shape: 'a UUID under a name without prefix', key: 'session', value: () => UUID },
  { shape: 'base64 of 18 bytes (24 characters, no padding)', key: 'cfg:nonce', value: () => 'q83vEjRWeJq83vEjRWeJqxyz' },
];

/** Integers: a Redisson semaphore without TTL; `SET lock 1 NX PX` with one under a lock-like name. */
export const INTEGER_SHAPE = { shape: 'an integer under a lock-like name', key: 'job-lock', value: () => '1' } as const;
