import calculateSlot from 'cluster-key-slot';
import { Redis, type Cluster } from 'ioredis';
import type { Connection } from './connection.js';

/** A subscription used only to wake a waiter early; the waiter's own timer stays the fallback. */
export interface WakeSubscription {
  /** Resolves true when a message arrived (now or since the last call), false after `ms` or on abort. */
  next(ms: number, signal?: AbortSignal): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Subscribes to `channel` on a dedicated connection: SUBSCRIBE, or SSUBSCRIBE on the primary that
 * owns the channel's slot when the lock protocol publishes with SPUBLISH (Cluster, sharded mode).
 */
export async function subscribeWake(conn: Connection, channel: string, sharded: boolean): Promise<WakeSubscription> {
  const sub = sharded && conn.topology === 'cluster' ? await slotOwnerConnection(conn, channel) : await plainConnection(conn);
  let pending = false;
  let wake: (() => void) | undefined;
  const onMessage = (ch: string): void => {
    if (ch !== channel) return;
    pending = true;
    wake?.();
  };
  sub.on(sharded ? 'smessage' : 'message', onMessage);
  if (sharded) await sub.ssubscribe(channel);
  else await sub.subscribe(channel);

  return {
    next(ms, signal) {
      if (pending) {
        pending = false;
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve) => {
        const finish = (value: boolean): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          wake = undefined;
          pending = false;
          resolve(value);
        };
        const onAbort = (): void => finish(false);
        const timer = Number.isFinite(ms) ? setTimeout(() => finish(false), Math.max(0, ms)) : undefined;
        wake = () => finish(true);
        if (signal?.aborted) finish(false);
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    async close() {
      sub.off(sharded ? 'smessage' : 'message', onMessage);
      sub.disconnect();
    },
  };
}

async function plainConnection(conn: Connection): Promise<Redis | Cluster> {
  const dup = await conn.duplicate('redlock-cli:wait');
  return dup.client;
}

/** SSUBSCRIBE must reach the primary that owns the channel's slot. */
async function slotOwnerConnection(conn: Connection, channel: string): Promise<Redis> {
  const cluster = conn.client as Cluster;
  const owners = cluster.slots[calculateSlot(channel)];
  const primary = owners?.[0];
  if (!primary) throw new Error(`no Cluster node owns the slot of ${channel}`);
  const [host, port] = splitNodeKey(primary);
  const client = new Redis({
    host,
    port,
    username: conn.url.username,
    password: conn.url.password,
    ...(conn.url.tls ? { tls: { servername: host } } : {}),
    connectionName: 'redlock-cli:wait',
    lazyConnect: true,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

function splitNodeKey(key: string): [string, number] {
  const at = key.lastIndexOf(':');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}
