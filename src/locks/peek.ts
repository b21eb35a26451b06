import { isMultiLockBody, multiLockOwners } from '../core/decode/multi-lock.js';
import { fairQueueKey, fencedTokenKey } from '../core/names.js';
import { runScript } from '../redis/scripts.js';
import { holdersFromFlat, ProtocolError } from './replies.js';
import type { Holder, LockEnv } from './types.js';

/** What a lock key holds right now (one round trip, read-only). */
export interface LockPeek {
  /** Redis type: none, hash, string, list, ... */
  readonly type: string;
  readonly ttlMs: number;
  readonly holders: readonly Holder[];
  /** A Redisson read-write hash has a `mode` field (read / write). */
  readonly mode?: 'read' | 'write' | undefined;
  readonly fairQueueLength: number;
  /** A fenced lock's `redisson_lock_token:{name}` counter exists (it outlives every hold). */
  readonly fenced: boolean;
}

export async function peekLock(env: LockEnv, key: string): Promise<LockPeek> {
  const reply = await runScript(env.conn.client, 'lockPeek', [key, fairQueueKey(key), fencedTokenKey(key)], []);
  if (!Array.isArray(reply) || reply.length < 4 || typeof reply[0] !== 'string') throw new ProtocolError('lock peek', reply);
  const flat = reply.slice(4) as unknown[];
  const modeAt = flat.findIndex((v, i) => i % 2 === 0 && v === 'mode');
  const modeValue = modeAt >= 0 ? flat[modeAt + 1] : undefined;
  const fields = modeAt >= 0 ? [...flat.slice(0, modeAt), ...flat.slice(modeAt + 2)] : flat;
  // A group multi-lock's holders are the owners of its value fields, not its fields.
  const group = fields.every((f) => typeof f === 'string') && isMultiLockBody(fields as string[]);
  return {
    type: reply[0],
    ttlMs: Number(reply[1]),
    holders: group ? [...multiLockOwners(fields)].map(([owner, count]) => ({ owner, count })) : holdersFromFlat(fields, 'lock peek'),
    mode: modeValue === 'read' || modeValue === 'write' ? modeValue : undefined,
    fairQueueLength: Number(reply[2]),
    fenced: Number(reply[3]) === 1,
  };
}
