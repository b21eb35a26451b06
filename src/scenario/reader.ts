import { peekLock, type LockPeek } from '../locks/peek.js';
import { connect, type Connection } from '../redis/connection.js';
import type { SandboxHandle } from '../sandbox/handle.js';
import { nodeByPort, type ReadTarget } from './targets.js';

// A read has to come back quickly or not at all: a SIGSTOPped node accepts connections and
// never answers, and the observer must not stall behind it.
const READ_TIMEOUT_MS = 300;

/**
 * The runner's own read-only connection to one place the lock lives. It fails fast and
 * reconnects on the next read (asking the target again, so it finds a new primary after a
 * failover), instead of letting ioredis queue commands behind a dead node.
 */
export class LockReader {
  private conn: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  private nodeName: string | undefined;
  private closed = false;

  constructor(
    private readonly target: ReadTarget,
    private readonly sandbox: SandboxHandle,
    private readonly name: string,
  ) {
    this.nodeName = target.node;
  }

  /** The node the last successful read came from. */
  get node(): string | undefined {
    return this.nodeName;
  }

  /** One peek of the lock key (one round trip), or an error if the node did not answer in time. */
  async peek(key: string): Promise<LockPeek> {
    const conn = await this.open();
    try {
      return await withTimeout(peekLock({ conn, nodes: [], pubsub: 'plain', now: Date.now }, key), READ_TIMEOUT_MS);
    } catch (err) {
      this.drop();
      throw err;
    }
  }

  /** Forget the connection: the next read connects again (after a failover). */
  drop(): void {
    const conn = this.conn;
    this.conn = undefined;
    conn?.client.disconnect();
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.connecting;
    this.drop();
    (await pending?.catch(() => undefined))?.client.disconnect();
  }

  private async open(): Promise<Connection> {
    if (this.conn) return this.conn;
    if (this.closed) throw new Error('reader closed');
    this.connecting ??= (async () => {
      try {
        const spec = await this.target.resolve();
        const conn = await connect(spec, { mode: 'one-shot', name: this.name, connectTimeoutMs: READ_TIMEOUT_MS });
        if (this.closed) {
          conn.client.disconnect();
          throw new Error('reader closed');
        }
        if (this.target.node === undefined) this.nodeName = await this.identify(conn);
        this.conn = conn;
        return conn;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  // Behind Sentinel or a "primary" lookup the node is only known once connected: its own port says which.
  private async identify(conn: Connection): Promise<string | undefined> {
    const reply = await withTimeout(conn.client.call('CONFIG', 'GET', 'port'), READ_TIMEOUT_MS).catch(() => undefined);
    const port = Array.isArray(reply) ? Number(reply[1]) : NaN;
    return Number.isFinite(port) ? (nodeByPort(this.sandbox, port) ?? `127.0.0.1:${port}`) : this.nodeName;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
