import { randomUUID } from 'node:crypto';
import { UsageError } from '../core/errors.js';
import { formatOwner, type RedissonOwner } from '../core/owner.js';
import type { ClientState } from '../core/repl/state.js';
import { identityOwner } from '../locks/owners.js';
import { createConnectionPool, type ConnectionPool } from '../redis/pool.js';

/** A named client of the REPL: one Redisson-style identity and its own connections, like one service. */
export interface ReplClient {
  readonly name: string;
  /** UUID and thread id: `acquire` as this client always uses `<uuid>:<thread>` (or the UUID's hex as a token). */
  readonly identity: RedissonOwner;
  /** One long-lived connection per target, named `redlock-cli:repl:<name>` in CLIENT LIST. */
  readonly pool: ConnectionPool;
}

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,15}$/;

export function createClient(name: string): ReplClient {
  if (!NAME.test(name)) throw new UsageError(`invalid client name "${name}": a letter, then up to 15 letters, digits, - or _`);
  return { name, identity: { client: randomUUID(), thread: '1' }, pool: createConnectionPool(`redlock-cli:repl:${name}`) };
}

export const describeIdentity = (client: ReplClient): string => formatOwner(client.identity);

/** The client as the session's state knows it: its name, identity and every owner id it writes. */
export function clientState(client: ReplClient): ClientState {
  return { name: client.name, identity: client.identity, owners: [formatOwner(client.identity), identityOwner({ ownerFormat: 'token' }, client.identity)] };
}
