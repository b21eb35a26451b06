import type { HoldEvent } from '../core/hold-events.js';
import type { Connection } from './connection.js';

export type ConnectionEvent = Extract<HoldEvent, { type: 'reconnecting' | 'reconnected' }>;

/**
 * Reports a long-lived connection going away and coming back (ioredis reconnects by itself),
 * so the view and event lines can say "reconnecting". Returns an unsubscribe function.
 */
export function watchConnection(conn: Connection, onEvent: (event: ConnectionEvent) => void, now: () => number = Date.now): () => void {
  let down = false;
  const onReconnecting = (): void => {
    if (down) return; // one event per outage, not one per attempt
    down = true;
    onEvent({ type: 'reconnecting', at: now(), target: conn.label });
  };
  const onReady = (): void => {
    if (!down) return;
    down = false;
    onEvent({ type: 'reconnected', at: now(), target: conn.label });
  };
  conn.client.on('reconnecting', onReconnecting);
  conn.client.on('ready', onReady);
  return () => {
    conn.client.off('reconnecting', onReconnecting);
    conn.client.off('ready', onReady);
  };
}
