import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * A self-signed certificate for 127.0.0.1 and localhost in `dir` (cert.pem, key.pem): the server's
 * certificate, the CA that trusts it, and a client certificate the server accepts, all in one.
 */
export function selfSignedCert(dir: string): { readonly cert: string; readonly key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  return { cert, key };
}

/** A private CA in `dir` and the certificates it signs (paths to PEM files). */
export interface PrivateCa {
  readonly ca: string;
  /** Signs a certificate for `subjectAltName` (e.g. `IP:127.0.0.1`); `days` -1 makes an expired one. */
  issue(name: string, subjectAltName: string, days?: number): { readonly cert: string; readonly key: string };
}

export function privateCa(dir: string, name = 'ca'): PrivateCa {
  const ca = join(dir, `${name}.pem`);
  const caKey = join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=redlock-cli test ${name}`, '-keyout', caKey, '-out', ca], { stdio: 'ignore' });
  return {
    ca,
    issue(certName, subjectAltName, days = 1) {
      const cert = join(dir, `${certName}.pem`);
      const key = join(dir, `${certName}.key`);
      const csr = join(dir, `${certName}.csr`);
      execFileSync('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${certName}`, '-addext', `subjectAltName=${subjectAltName}`, '-keyout', key, '-out', csr], { stdio: 'ignore' });
      execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-days', String(days), '-copy_extensions', 'copy', '-out', cert], { stdio: 'ignore' });
      return { cert, key };
    },
  };
}
