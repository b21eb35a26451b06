import { connect, type Connection, type ConnectionProvider, type ConnectOptions } from './connection.js';
import { closeConnection } from './close.js';
import { endpointKey } from '../core/endpoint.js';

/** A ConnectionProvider that keeps one long-lived connection per target until closeAll(). */
export interface ConnectionPool extends ConnectionProvider {
  /** The connections open now (for tests and the REPL's `clients`). */
  readonly size: number;
  closeAll(): Promise<void>;
}


/**
 * One REPL client's connections: the first command to a target connects (long-lived: it
 * reconnects rather than failing the next command), later ones reuse it. Every command gets the
 * same object back, so what hangs off a Connection (the pub/sub hub of waiters) is shared too.
 * `name` is the CLIENT SETNAME of every connection, e.g. `redlock-cli:repl:A`.
 */
export function createConnectionPool(name: string, base: Partial<ConnectOptions> = {}): ConnectionPool {
  const open = new Map<string, Promise<{ real: Connection; shared: Connection }>>();
  return {
    get size() {
      return open.size;
    },
    async open(spec) {
      // Credentials are part of the key: a target reached with another user is another connection.
      const key = endpointKey(spec);
      const existing = open.get(key);
      if (existing) {
        const { real, shared } = await existing;
        // Someone dropped the socket for good (hold does when Redis stops answering): start over.
        if (real.client.status !== 'end') return shared;
        open.delete(key);
        await real.close().catch(() => undefined);
      }
      const made = connect(spec, { ...base, mode: 'long-lived', name }).then((real) => ({
        real,
        shared: { ...real, close: async () => {} } satisfies Connection,
      }));
      open.set(key, made);
      made.catch(() => open.delete(key)); // a failed connect must not poison the next command
      return (await made).shared;
    },
    async closeAll() {
      const all = [...open.values()];
      open.clear();
      await Promise.all(
        all.map(async (p) => {
          const conn = await p.then((c) => c.real).catch(() => undefined);
          if (!conn) return;
          // QUIT waits for a server that may be gone; a closed REPL must not hang on it.
          await closeConnection(conn);
        }),
      );
    },
  };
}
