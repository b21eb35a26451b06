import { randomBytes, randomUUID } from 'node:crypto';
import { UsageError } from '../core/errors.js';
import { formatOwner, parseRedissonOwner, type RedissonOwner } from '../core/owner.js';
import type { LockProtocol } from './types.js';

/** A fresh identity: Redisson `<uuid>:1`, the library's own token format, or node-redlock's 16 random bytes as 32 hex chars. */
export function newOwner(protocol: Pick<LockProtocol, 'ownerFormat' | 'tokenOwner'>): string {
  if (protocol.tokenOwner) return protocol.tokenOwner.fresh();
  return protocol.ownerFormat === 'redisson' ? `${randomUUID()}:1` : randomBytes(16).toString('hex');
}

/** Validates --owner for the protocol's format. */
export function parseOwner(protocol: Pick<LockProtocol, 'ownerFormat'>, text: string): string {
  if (protocol.ownerFormat === 'redisson') return formatOwner(parseRedissonOwner(text));
  if (text === '' || /\s/.test(text)) throw new UsageError(`invalid token "${text}": expected the lock value, e.g. 32 hex characters`);
  return text;
}

/**
 * The owner a long-lived client (a REPL client) uses every time: `<uuid>:<thread>` for Redisson
 * kinds like one Redisson thread, and the UUID's 32 hex digits as a token for token/redlock.
 */
export function identityOwner(protocol: Pick<LockProtocol, 'ownerFormat' | 'tokenOwner'>, identity: RedissonOwner): string {
  if (protocol.tokenOwner) return protocol.tokenOwner.forClient(identity.client);
  return protocol.ownerFormat === 'redisson' ? formatOwner(identity) : identity.client.replace(/-/g, '');
}
