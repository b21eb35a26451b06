import type { Socket } from 'node:net';
import type { UnreachableError } from '../core/errors.js';
import type { Endpoint } from '../core/endpoint.js';
import { clientCertificateError } from './errors.js';

// A server with tls-auth-clients refuses a client certificate only after TLS 1.3's handshake has
// completed on the client's side: its alert races the client's first command, and when the
// command reaches the closing server first, the server resets the connection and the alert is
// lost (ECONNRESET, "Connection is closed"). A second handshake that writes nothing always gets
// the alert, since the server then closes with nothing unread.

/** How long the silent handshake waits for an alert once it is through (a server that accepts it says nothing). */
const ALERT_WAIT_MS = 2_000;

const DROPPED = /ECONNRESET|EPIPE|Connection is closed/i;
const droppedConnection = (err: unknown): boolean =>
  err instanceof Error && (DROPPED.test((err as NodeJS.ErrnoException).code ?? '') || DROPPED.test(err.message));

/** The alert of one handshake that writes nothing, or undefined when none comes within the wait. */
function silentHandshake(socket: Socket): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return new Promise<unknown>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ALERT_WAIT_MS);
    socket.once('error', (err) => resolve(err));
    socket.once('close', () => resolve(undefined));
  }).finally(() => {
    clearTimeout(timer);
    socket.destroy();
  });
}

/**
 * Why the server refused the client certificate (none given, or one its CA did not sign), when a
 * connect to it failed: from the alert ioredis saw, or, when the connection was dropped before
 * the alert was read, from a silent handshake on `openSocket` (the endpoint's TLS socket);
 * undefined for any other failure.
 */
export async function certificateRefusal(
  spec: Endpoint,
  label: string,
  seen: unknown,
  openSocket: () => Socket,
): Promise<UnreachableError | undefined> {
  const cert = spec.tlsFiles?.cert;
  const refused = clientCertificateError(seen, label, cert);
  // Sentinel and Cluster endpoints name their nodes elsewhere: only a plain server is asked again.
  if (refused || !spec.tls || !droppedConnection(seen) || spec.sentinels || spec.clusterNodes) return refused;
  return clientCertificateError(await silentHandshake(openSocket()), label, cert);
}
