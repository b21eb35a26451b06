import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { TlsFiles } from '../core/endpoint.js';
import { UsageError } from '../core/errors.js';

export type { TlsFiles } from '../core/endpoint.js';

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
