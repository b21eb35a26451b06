import { beforeDeadline } from '../core/deadline.js';
import type { Connection } from './connection.js';

/** How long a polite close may wait for Redis before the sockets are dropped. */
export const CLOSE_TIMEOUT_MS = 1000;

/**
 * Closes politely (`close`: the connections' closers, then QUIT) but waits for Redis at most
 * `timeoutMs`, then drops the sockets of `conns`: QUIT waits for a server that may be gone (ioredis
 * queues it while it reconnects), and exiting must never wait on that. 0 drops them at once.
 */
export async function closeWithin(close: () => Promise<unknown>, conns: readonly Connection[], timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
  const drop = (): void => {
    for (const conn of conns) conn.client.disconnect();
  };
  if (timeoutMs <= 0) return drop();
  const closed = close().then(
    () => true,
    () => true,
  );
  if (!(await beforeDeadline(closed, timeoutMs, () => false))) drop();
}

/** One connection, closed within `timeoutMs`; one that is not ready (reconnecting, ended) is dropped at once. */
export function closeConnection(conn: Connection, timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
  return closeWithin(() => conn.close(), [conn], conn.client.status === 'ready' ? timeoutMs : 0);
}
