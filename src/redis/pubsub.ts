import calculateSlot from 'cluster-key-slot';
import type { Cluster, Redis } from 'ioredis';
import { nodeClient, nodeEndpoint, type Connection } from './connection.js';

/** A subscription used only to wake a waiter early; the waiter's own timer stays the fallback. */
export interface WakeSubscription {
  /** Resolves true when a message arrived (now or since the last call), false after `ms` or on abort. */
  next(ms: number, signal?: AbortSignal): Promise<boolean>;
  close(): Promise<void>;
}

type Listener = () => void;

/**
 * One subscriber connection shared by every waiter of a Connection (per Cluster node when
 * sharded), like Redisson's PublishSubscribeService: a waiter costs a SUBSCRIBE on an open
 * connection, not a new TCP connection, and the last waiter of a channel unsubscribes it.
 */
class Hub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly ready = new Map<string, Promise<unknown>>();

  constructor(
    private readonly client: Redis | Cluster,
    private readonly sharded: boolean,
  ) {
    client.on(sharded ? 'smessage' : 'message', (channel: string) => {
      for (const fn of this.listeners.get(channel) ?? []) fn();
    });
  }

  async add(channel: string, fn: Listener): Promise<void> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      this.ready.set(channel, this.sharded ? this.client.ssubscribe(channel) : this.client.subscribe(channel));
    }
    set.add(fn);
    await this.ready.get(channel);
  }

  async remove(channel: string, fn: Listener): Promise<void> {
    const set = this.listeners.get(channel);
    if (!set?.delete(fn) || set.size > 0) return;
    this.listeners.delete(channel);
    this.ready.delete(channel);
    await (this.sharded ? this.client.sunsubscribe(channel) : this.client.unsubscribe(channel)).catch(() => undefined);
  }

  close(): void {
    this.client.disconnect();
  }
}

const hubs = new WeakMap<Connection, Map<string, Promise<Hub>>>();

function hubFor(conn: Connection, channel: string, sharded: boolean): Promise<Hub> {
  let byNode = hubs.get(conn);
  if (!byNode) {
    byNode = new Map();
    hubs.set(conn, byNode);
    const owned = byNode;
    conn.onClose(async () => {
      for (const hub of owned.values()) (await hub.catch(() => undefined))?.close();
      owned.clear();
    });
  }
  // SSUBSCRIBE must reach the primary owning the channel's slot on a Cluster; on a single server
  // (forced --pubsub sharded) any connection to it will do, but it must still be SSUBSCRIBE.
  const onSlotOwner = sharded && conn.topology === 'cluster';
  const nodeKey = onSlotOwner ? slotOwner(conn, channel) : sharded ? 'sharded' : 'plain';
  let hub = byNode.get(nodeKey);
  if (!hub) {
    const client = onSlotOwner ? nodeConnection(conn, nodeKey) : conn.duplicate('redlock-cli:wait').then((c) => c.client);
    hub = client.then((c) => new Hub(c, sharded));
    byNode.set(nodeKey, hub);
    hub.catch(() => byNode.delete(nodeKey)); // a failed connect must not poison later waits
  }
  return hub;
}

/** Subscribes to `channel`: SUBSCRIBE, or SSUBSCRIBE on the slot owner for sharded Cluster pub/sub. */
export async function subscribeWake(conn: Connection, channel: string, sharded: boolean): Promise<WakeSubscription> {
  const hub = await hubFor(conn, channel, sharded);
  let pending = false;
  let wake: (() => void) | undefined;
  const listener = (): void => {
    pending = true;
    wake?.();
  };
  await hub.add(channel, listener);
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
    close: () => hub.remove(channel, listener),
  };
}

/** The primary (host:port) that owns the channel's slot: SSUBSCRIBE must go there. */
function slotOwner(conn: Connection, channel: string): string {
  const owner = (conn.client as Cluster).slots[calculateSlot(channel)]?.[0];
  if (!owner) throw new Error(`no Cluster node owns the slot of ${channel}`);
  return owner;
}

/** The Cluster node `host:port`, reached with the connection's credentials, TLS files and timeouts. */
async function nodeConnection(conn: Connection, nodeKey: string): Promise<Redis> {
  const at = nodeKey.lastIndexOf(':');
  const node = { host: nodeKey.slice(0, at), port: Number(nodeKey.slice(at + 1)) };
  const client = nodeClient(nodeEndpoint(conn.spec, node, 'redlock-cli:wait'), 'long-lived');
  await client.connect();
  return client;
}
