import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { UnreachableError } from '../core/errors.js';
import { tlsOptions } from './connection.js';
import { toCliError } from './errors.js';
import type { HostPort } from './target.js';

// A MONITOR connection of our own rather than ioredis's monitor(): ioredis splits each line on
// `" "` and undoes only \" , so a key holding `" "`, a backslash or a non-ASCII byte arrives
// mangled. Here every line reaches the decoder exactly as the server printed it (one RESP simple
// string), and the decoder unescapes it. MONITOR changes nothing on the server; the only other
// commands sent are AUTH and CLIENT SETNAME.

export interface MonitorEndpoint extends HostPort {
  readonly tls?: boolean;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** CLIENT SETNAME, so operators see `redlock-cli:trace` in CLIENT LIST. */
  readonly name: string;
  readonly connectTimeoutMs?: number;
  /** The database the target names: keyspace notifications and reads use it (MONITOR shows every one). */
  readonly db?: number;
}

export interface MonitorConnection {
  /** `host:port` of the node. */
  readonly label: string;
  /** Resolves when the connection ends: undefined after close(), the error when it broke. */
  readonly ended: Promise<Error | undefined>;
  close(): void;
}

const encode = (args: readonly string[]): string => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/** Opens MONITOR on one node; `onLines` gets each batch of lines as they arrive (server order). */
export function openMonitor(ep: MonitorEndpoint, onLines: (lines: string[]) => void): Promise<MonitorConnection> {
  const label = `${ep.host.includes(':') ? `[${ep.host}]` : ep.host}:${ep.port}`;
  return new Promise((resolve, reject) => {
    const socket: Socket = ep.tls ? tlsConnect({ host: ep.host, port: ep.port, ...tlsOptions(ep.host) }) : netConnect({ host: ep.host, port: ep.port });
    const setup: string[][] = [];
    if (ep.password !== undefined) setup.push(ep.username ? ['AUTH', ep.username, ep.password] : ['AUTH', ep.password]);
    setup.push(['CLIENT', 'SETNAME', ep.name], ['MONITOR']);
    let pending = setup.length;
    let started = false;
    let closing = false;
    let rest = '';
    let finish: (err: Error | undefined) => void = () => undefined;
    const ended = new Promise<Error | undefined>((r) => (finish = r));
    const timer = setTimeout(() => fail(new UnreachableError(`${label}: no answer within ${ep.connectTimeoutMs ?? 3000} ms`)), ep.connectTimeoutMs ?? 3000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (!started) reject(err);
      else finish(err);
    };
    socket.setNoDelay(true);
    socket.once(ep.tls ? 'secureConnect' : 'connect', () => socket.write(setup.map(encode).join('')));
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
        if (part.startsWith('-')) {
          const message = part.slice(1);
          // NOPERM: an ACL user without MONITOR (it needs +monitor or the admin category).
          const hint = /NOPERM/i.test(message) ? ' (trace needs a user allowed to run MONITOR)' : '';
          return fail(toCliError(new Error(message + hint), label));
        }
        if (pending > 0) {
          pending--;
          if (pending === 0) {
            started = true;
            clearTimeout(timer);
            resolve({ label, ended, close: () => ((closing = true), socket.destroy()) });
          }
          continue;
        }
        lines.push(part.startsWith('+') ? part.slice(1) : part);
      }
      if (lines.length > 0) onLines(lines);
    });
  });
}
