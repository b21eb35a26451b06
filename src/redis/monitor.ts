import { UnreachableError } from '../core/errors.js';
import { rawSocket, type NodeEndpoint } from './connection.js';
import { toCliError } from './errors.js';

// A MONITOR connection of our own rather than ioredis's monitor(): ioredis splits each line on
// `" "` and undoes only \" , so a key holding `" "`, a backslash or a non-ASCII byte arrives
// mangled. Here every line reaches the decoder exactly as the server printed it (one RESP simple
// string), and the decoder unescapes it. MONITOR changes nothing on the server; the only other
// commands sent are AUTH, CLIENT SETNAME, SELECT (a database other than 0) and, once MONITOR runs, the trace's fences (a read-only
// ECHO: Redis 7 still runs it on a monitoring connection and shows it in the stream).

/** The node to monitor, reached as every other connection to it is (connection.ts). */
export type MonitorEndpoint = NodeEndpoint;

export interface MonitorConnection {
  /** `host:port` of the node. */
  readonly label: string;
  /** Resolves when the connection ends: undefined after close(), the error when it broke. */
  readonly ended: Promise<Error | undefined>;
  /** Sends a command on the monitoring connection (fences); its reply is read and dropped. */
  send(args: readonly string[]): void;
  close(): void;
}

export interface MonitorHandlers {
  /** Each batch of lines as they arrive (server order). */
  readonly onLines: (lines: string[]) => void;
  /** A command sent with send() was refused (ACL, an older server); the stream goes on. */
  readonly onRefused?: (message: string) => void;
}

const encode = (args: readonly string[]): string => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/** Opens MONITOR on one node; its lines go to `handlers.onLines` in batches as they arrive. */
export function openMonitor(ep: MonitorEndpoint, handlers: MonitorHandlers): Promise<MonitorConnection> {
  const label = `${ep.host.includes(':') ? `[${ep.host}]` : ep.host}:${ep.port}`;
  return new Promise((resolve, reject) => {
    const { socket, connectedEvent, handshake, handshakeTimeoutMs } = rawSocket(ep);
    const setup = [...handshake, ['MONITOR']];
    let pending = setup.length;
    let started = false;
    let closing = false;
    let rest = '';
    /** The next part is the payload of a bulk reply (an ECHO's), not a line of the stream. */
    let bulkPayload = false;
    let finish: (err: Error | undefined) => void = () => undefined;
    const ended = new Promise<Error | undefined>((r) => (finish = r));
    const timer = setTimeout(() => fail(new UnreachableError(`${label}: no answer within ${handshakeTimeoutMs} ms`)), handshakeTimeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (!started) reject(err);
      else finish(err);
    };
    socket.setNoDelay(true);
    socket.once(connectedEvent, () => socket.write(setup.map(encode).join('')));
    socket.on('error', (err) => fail(started ? err : toCliError(err, label)));
    socket.on('close', () => {
      clearTimeout(timer);
      if (!started) reject(new UnreachableError(`${label} closed the connection before MONITOR started`));
      finish(closing ? undefined : new Error(`${label} closed the MONITOR connection`));
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\r\n');
      rest = parts.pop() ?? '';
      const lines: string[] = [];
      for (const part of parts) {
        if (bulkPayload) {
          bulkPayload = false;
          continue;
        }
        // Once MONITOR runs, a bulk or an error is the reply to a fence, never a line of the stream.
        if (started && part.startsWith('$')) {
          bulkPayload = part !== '$-1';
          continue;
        }
        if (started && part.startsWith('-')) {
          handlers.onRefused?.(part.slice(1));
          continue;
        }
        // A refused or renamed CLIENT SETNAME (managed services) leaves the connection unnamed; nothing else may fail.
        if (part.startsWith('-') && setup[setup.length - pending]?.[0] !== 'CLIENT') {
          // NOPERM (a user without +monitor) or a renamed MONITOR: the rule it lacks, exit 10.
          return fail(toCliError(new Error(part.slice(1)), label, ep.username));
        }
        if (pending > 0) {
          pending--;
          if (pending === 0) {
            started = true;
            clearTimeout(timer);
            resolve({ label, ended, send: (args) => void socket.write(encode(args)), close: () => ((closing = true), socket.destroy()) });
          }
          continue;
        }
        lines.push(part.startsWith('+') ? part.slice(1) : part);
      }
      if (lines.length > 0) handlers.onLines(lines);
    });
  });
}
