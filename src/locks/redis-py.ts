import { randomBytes } from 'node:crypto';
import { pollForLock, tokenLock, tokenTryAcquire } from './token.js';
import type { LockProtocol } from './types.js';

// redis-py's `Lock` (docs/lock-formats.md): `SET name token NX PX timeout`, and a release and an
// extend that compare the token first: the token lock's protocol, with redis-py's own token (a
// uuid1 as 32 hex digits, which is how `inspect` tells its locks apart) and its pacing (a blocking
// acquire retries every `sleep`, 0.1 s by default).

/** 100-ns intervals between the UUID epoch (1582-10-15) and the Unix epoch. */
const UUID_EPOCH_OFFSET = 122_192_928_000_000_000n;
/** redis-py's default `sleep` between the attempts of a blocking acquire. */
const REDIS_PY_SLEEP_MS = 100;

/**
 * `uuid.uuid1().hex`: the time in 100-ns ticks, the RFC variant with a random clock sequence, and a
 * random node with the multicast bit set, as Python draws it where it cannot read a MAC address.
 */
export function uuid1Hex(nowMs: number = Date.now()): string {
  const ticks = BigInt(nowMs) * 10_000n + UUID_EPOCH_OFFSET + BigInt(randomBytes(2).readUInt16BE() % 10_000);
  const hex = (n: bigint, width: number): string => n.toString(16).padStart(width, '0');
  const sequence = (randomBytes(2).readUInt16BE() & 0x3fff) | 0x8000;
  const node = randomBytes(6);
  node[0] = node[0]! | 0x01;
  return `${hex(ticks & 0xffff_ffffn, 8)}${hex((ticks >> 32n) & 0xffffn, 4)}${hex(((ticks >> 48n) & 0x0fffn) | 0x1000n, 4)}${hex(BigInt(sequence), 4)}${node.toString('hex')}`;
}

/** A REPL client's token, made at its first use and kept, so its locks stay its own across lines. */
const clientTokens = new Map<string, string>();

export const redisPyLock: LockProtocol = {
  ...tokenLock,
  kind: 'redis-py',
  tokenOwner: {
    fresh: () => uuid1Hex(),
    forClient: (uuid) => clientTokens.get(uuid) ?? clientTokens.set(uuid, uuid1Hex()).get(uuid)!,
  },
  acquire: (env, req, opts) =>
    pollForLock(
      env,
      () => tokenTryAcquire(env.conn.client, req),
      opts,
      () => REDIS_PY_SLEEP_MS,
    ),
};
