import { CliError, UnreachableError } from '../core/errors.js';
import { permissionError } from './permissions.js';

function errorText(err: unknown): { code: string; message: string } {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    return { code, message: err.message };
  }
  return { code: '', message: String(err) };
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

// tls-auth-clients: the server's alert arrives after the handshake (ioredis reports it as an error
// event; the command waiting on the handshake sees a closed connection), OpenSSL's text ends in a newline.
const CERTIFICATE_REQUIRED = /^ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED$|alert certificate required/i;
const CERTIFICATE_REFUSED = /^ERR_SSL_(TLSV1_ALERT_UNKNOWN_CA|SSLV3_ALERT_BAD_CERTIFICATE|TLSV1_ALERT_DECRYPT_ERROR)$|alert (unknown ca|bad certificate|decrypt error)/i;

/**
 * The server's alert refusing the client certificate (none given, or one its CA did not sign),
 * naming the --cert file where the caller knows it; undefined for any other error.
 */
export function clientCertificateError(err: unknown, label: string, certFile?: string): UnreachableError | undefined {
  const { code, message } = errorText(err);
  const says = (re: RegExp) => re.test(code) || re.test(message);
  if (says(CERTIFICATE_REQUIRED)) {
    return new UnreachableError(`Redis at ${label} requires a client certificate: pass --cert <file> and --key <file>`);
  }
  if (!says(CERTIFICATE_REFUSED)) return undefined;
  const given = certFile === undefined ? '' : ` --cert ${certFile}`;
  return new UnreachableError(
    `Redis at ${label} does not accept the client certificate${given}: pass one signed by the CA the server trusts (its tls-ca-cert-file)`,
  );
}

/**
 * Maps connection-level failures (refused, timeout, DNS, auth) to one-line exit-3 errors naming
 * host:port, and a refused command (ACL, renamed) to the rule `user` lacks. ioredis never puts
 * the password in its messages, and neither do we.
 */
export function toCliError(err: unknown, label: string, user: string | undefined = undefined): CliError {
  if (err instanceof CliError) return err;
  const { code, message } = errorText(err);
  const refused = permissionError(message, label, user || 'default');
  if (refused) return refused;
  if (/NOAUTH/.test(message)) {
    return new UnreachableError(
      `Redis at ${label} asked for a password (NOAUTH) and none was given: set REDISCLI_AUTH, use --askpass, or put it in the URL`,
    );
  }
  if (/WRONGPASS|invalid password|invalid username-password/i.test(message)) {
    return new UnreachableError(
      `authentication failed at ${label}: wrong user or password (set them in the URL, redis://user:password@host:port)`,
    );
  }
  const refusedCertificate = clientCertificateError(err, label);
  if (refusedCertificate) return refusedCertificate;
  if (TLS_CODES.has(code) || /certificate|SSL routines|wrong version number/i.test(message)) {
    return new UnreachableError(
      `TLS handshake with ${label} failed: ${message.replace(/\s*\n\s*/g, ' ').trim()} (trust its CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem; use redis:// if it does not speak TLS)`,
    );
  }
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) {
    return new UnreachableError(`cannot connect to Redis at ${label}: connection refused (is redis-server running there?)`);
  }
  if (code === 'ETIMEDOUT' || /ETIMEDOUT|timed? ?out/i.test(message)) {
    return new UnreachableError(`cannot connect to Redis at ${label}: timed out`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new UnreachableError(`cannot connect to Redis at ${label}: unknown host`);
  }
  if (/All sentinels are unreachable|sentinel/i.test(message)) {
    return new UnreachableError(`cannot reach a Sentinel for ${label}: ${message}`);
  }
  if (/Failed to refresh slots cache|ClusterAllFailedError|None of startup nodes/i.test(message)) {
    return new UnreachableError(`cannot reach Redis Cluster at ${clusterSeeds(label)}: no seed node answered`);
  }
  if (/Connection is closed|Stream isn't writeable|MaxRetriesPerRequest|ECONNRESET|EPIPE/i.test(message)) {
    return new UnreachableError(`lost the connection to Redis at ${label}`);
  }
  return new CliError(message, 1);
}

// describeTarget names a Cluster `cluster <seeds>`; messages that say "Redis Cluster" name only the seeds.
const clusterSeeds = (label: string): string => label.replace(/^cluster /, '');

/** A Cluster whose slot map is empty (not formed yet): nothing can be read or written until slots are assigned. */
export function noSlotsError(label: string): UnreachableError {
  return new UnreachableError(
    `the Redis Cluster at ${clusterSeeds(label)} serves no slots (CLUSTER SLOTS is empty): assign them (redis-cli --cluster create, CLUSTER ADDSLOTS) or connect to a node of a formed Cluster`,
  );
}
