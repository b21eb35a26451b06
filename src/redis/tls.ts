import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { TlsFiles } from '../core/endpoint.js';
import { UsageError } from '../core/errors.js';

export type { TlsFiles } from '../core/endpoint.js';

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new UsageError(
      `cannot read ${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/**
/**
 * Parses a file given as a certificate or a key before any connection uses it: a wrong file is bad
 * input naming the file, where OpenSSL would later say only "PEM routines::no start line" (exit 1)
 * or, for a key that does not match its certificate, fail the handshake as if the server were untrusted.
 */
function parsed<T>(path: string, flag: string, what: string, parse: () => T): T {
  try {
    return parse();
  } catch {
    throw new UsageError(`${flag} ${path} is not ${what} (a PEM file is expected)`);
  }
}

function checkedFiles(files: TlsFiles): { ca?: Buffer; cert?: Buffer; key?: Buffer } {
  const ca = files.ca !== undefined ? readPem(files.ca, '--cacert') : undefined;
  const cert = files.cert !== undefined ? readPem(files.cert, '--cert') : undefined;
  const key = files.key !== undefined ? readPem(files.key, '--key') : undefined;
  if (ca) parsed(files.ca!, '--cacert', 'a certificate', () => new X509Certificate(ca));
  const x509 = cert ? parsed(files.cert!, '--cert', 'a certificate', () => new X509Certificate(cert)) : undefined;
  const privateKey = key
    ? parsed(files.key!, '--key', 'a private key without a passphrase', () => createPrivateKey(key))
    : undefined;
  if (x509 && privateKey && !x509.checkPrivateKey(privateKey)) {
    throw new UsageError(`--key ${files.key} is not the private key of --cert ${files.cert}`);
  }
  return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
}

/**
 * ioredis `tls` options: SNI only for host names (Node warns when the server name is an IP), then
 * the files. `host` undefined: no server name fixed here, so each socket checks the host it
 * connects to (Sentinel mode, where one set of options reaches every sentinel and the master).
 */
export function tlsOptions(host: string | undefined, files: TlsFiles = {}): Record<string, unknown> {
  return {
    ...(host !== undefined && isIP(host) === 0 ? { servername: host } : {}),
    ...checkedFiles(files),
    ...(files.insecure ? { rejectUnauthorized: false } : {}),
  };
}
