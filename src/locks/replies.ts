import type { Attempt, Holder, ReleaseOutcome } from './types.js';

// Every reply is checked here before anything else reads it: a script change that breaks a
// contract fails loudly instead of surfacing as a wrong "acquired".

export class ProtocolError extends Error {
  constructor(what: string, reply: unknown) {
    super(`unexpected reply from ${what}: ${JSON.stringify(reply)}`);
  }
}

function asInt(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  throw new ProtocolError(what, value);
}

/** Flat `[field, count, field, count, ...]` into holders. */
export function holdersFromFlat(flat: readonly unknown[], what: string): Holder[] {
  const holders: Holder[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const owner = flat[i];
    if (typeof owner !== 'string') throw new ProtocolError(what, flat);
    const countText = flat[i + 1];
    const count = typeof countText === 'string' && /^-?\d+$/.test(countText) ? Number(countText) : 1;
    holders.push({ owner, count });
  }
  return holders;
}

/**
 * The acquire contract shared by our lock scripts:
 * `{1, holdCount, token}` acquired, `{0, pttl, field1, value1, ...}` held by others.
 */
export function parseAttempt(reply: unknown, what: string): Attempt {
  if (!Array.isArray(reply) || reply.length < 2) throw new ProtocolError(what, reply);
  const status = asInt(reply[0], what);
  if (status === 1) {
    const count = asInt(reply[1], what);
    const token = reply.length > 2 ? asInt(reply[2], what) : -1;
    return token >= 0 ? { acquired: true, count, token } : { acquired: true, count };
  }
  if (status === 0) {
    return { acquired: false, ttlMs: asInt(reply[1], what), holders: holdersFromFlat(reply.slice(2), what) };
  }
  throw new ProtocolError(what, reply);
}

/** Redisson's unlock contract: nil = not held by the caller, 0 = still held, 1 = released. */
export function parseRelease(reply: unknown, what: string): ReleaseOutcome {
  if (reply === null) return 'not-owner';
  const value = asInt(reply, what);
  if (value === 1) return 'released';
  if (value === 0) return 'decremented';
  throw new ProtocolError(what, reply);
}

/** 1 / 0 replies (renew, force unlock). */
export function parseFlag(reply: unknown, what: string): boolean {
  const value = asInt(reply, what);
  if (value !== 0 && value !== 1) throw new ProtocolError(what, reply);
  return value === 1;
}
