import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { UsageError } from '../core/errors.js';

/** redis-cli's TLS flags: files by path (read when connecting) and --insecure. */
export interface TlsFiles {
  /** --cacert: trust this CA (instead of the system's list, as redis-cli does). */
  readonly ca?: string | undefined;
  /** --cert / --key: a client certificate, for servers with tls-auth-clients yes. */
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  /** --insecure: skip verifying the server certificate, as redis-cli does. */
  readonly insecure?: boolean | undefined;
}

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new UsageError(`cannot read ${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** ioredis `tls` options: SNI only for host names (Node warns when the server name is an IP), then the files. */
export function tlsOptions(host: string, files: TlsFiles = {}): Record<string, unknown> {
  return {
    ...(isIP(host) === 0 ? { servername: host } : {}),
    ...(files.ca !== undefined ? { ca: readPem(files.ca, '--cacert') } : {}),
    ...(files.cert !== undefined ? { cert: readPem(files.cert, '--cert') } : {}),
    ...(files.key !== undefined ? { key: readPem(files.key, '--key') } : {}),
    ...(files.insecure ? { rejectUnauthorized: false } : {}),
  };
}
