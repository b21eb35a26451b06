import type { KeyReading, ReadingKind } from '../core/trace/keyspace-decoder.js';
import { nodeClient } from './connection.js';
import { toCliError } from './errors.js';
import type { MonitorEndpoint } from './monitor.js';
import { formatHostPort } from './target.js';
import { withNode } from './trace-nodes.js';

// Keyspace notifications for `trace --source keyspace`. Read-only unless the user asked for the
// one exception (--enable-notifications: CONFIG SET of notify-keyspace-events, then back): CONFIG
// GET, TIME for the server's clock, PSUBSCRIBE to the database's __keyspace@ channels, and GET /
// HGETALL / PTTL of a lock key just after it changed (notifications carry no value).

export interface Notification {
  readonly key: string;
  readonly event: string;
  /** Local epoch ms it arrived. */
  readonly receivedAt: number;
}

export interface KeyspaceConnection {
  /** Resolves when the subscription ends: undefined after close(), the error when it broke. */
  readonly ended: Promise<Error | undefined>;
  close(): void;
}

const NOTIFY = 'notify-keyspace-events';

/** The node's notify-keyspace-events, as CONFIG GET prints it. */
export function notifyConfig(ep: MonitorEndpoint): Promise<string> {
  return withNode(ep, async (client) => {
    const reply = (await client.call('CONFIG', 'GET', NOTIFY)) as unknown;
    return Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : '';
  });
}

/** CONFIG SET notify-keyspace-events: only ever with --enable-notifications, and set back at the end. */
export function setNotifyConfig(ep: MonitorEndpoint, value: string): Promise<void> {
  return withNode(ep, async (client) => void (await client.call('CONFIG', 'SET', NOTIFY, value)));
}

/** Local clock minus the server's (TIME), taken halfway through the round trip. */
export function serverClockOffset(ep: MonitorEndpoint): Promise<number> {
  return withNode(ep, async (client) => {
    const before = Date.now();
    const reply = (await client.call('TIME')) as unknown;
    const after = Date.now();
    if (!Array.isArray(reply)) return 0;
    return (before + after) / 2 - (Number(reply[0]) * 1000 + Number(reply[1]) / 1000);
  });
}

/** PSUBSCRIBE __keyspace@<db>__:* on one node; `onNotify` gets each notification in the server's order. */
export async function subscribeKeyspace(ep: MonitorEndpoint, onNotify: (n: Notification) => void): Promise<KeyspaceConnection> {
  const label = formatHostPort(ep);
  const prefix = `__keyspace@${ep.db ?? 0}__:`;
  const client = nodeClient(ep, 'one-shot');
  let closing = false;
  const ended = new Promise<Error | undefined>((resolve) => client.once('end', () => resolve(closing ? undefined : new Error(`${label} closed the subscription`))));
  client.on('pmessage', (_pattern: string, channel: string, event: string) => onNotify({ key: channel.slice(prefix.length), event, receivedAt: Date.now() }));
  try {
    await client.connect();
    await client.psubscribe(`${prefix}*`);
  } catch (err) {
    closing = true;
    client.disconnect();
    throw toCliError(err, label, ep.username);
  }
  return { ended, close: () => ((closing = true), client.disconnect()) };
}

export interface KeyReader {
  /** The key as it is now; undefined when the read failed (the connection went away). */
  read(key: string, kind: ReadingKind): Promise<KeyReading | undefined>;
  /** The node's notify-keyspace-events now (one CONFIG GET on this connection); undefined when it did not answer. */
  notifyFlags(): Promise<string | undefined>;
  close(): void;
}

/** A read that takes longer is given up (its event loses its owner): a stopped node must not stall the trace. */
const READ_TIMEOUT_MS = 5000;

/** One connection that reads lock keys after their notifications, in order (pipelined). */
export async function keyReader(ep: MonitorEndpoint): Promise<KeyReader> {
  const client = nodeClient(ep, 'one-shot', { connectTimeoutMs: 3000, replyTimeoutMs: READ_TIMEOUT_MS });
  await client.connect().catch((err: unknown) => {
    client.disconnect();
    throw toCliError(err, formatHostPort(ep));
  });
  return {
    async read(key, kind) {
      const pipeline = client.pipeline();
      if (kind === 'string') pipeline.get(key);
      else if (kind === 'hash') pipeline.hgetall(key);
      pipeline.pttl(key);
      const replies = await pipeline.exec().catch(() => null);
      const [ttlErr, ttl] = replies?.at(-1) ?? [new Error('no reply'), null];
      if (!replies || ttlErr || typeof ttl !== 'number') return undefined;
      if (ttl === -2) return { exists: false, pttl: ttl };
      const [err, value] = kind === 'ttl' ? [null, null] : replies[0]!;
      // A wrong type (the key is not what its event suggested) reads as a key without a value.
      if (err || value === null) return { exists: true, pttl: ttl };
      if (kind === 'string') return typeof value === 'string' ? { exists: true, value, pttl: ttl } : { exists: true, pttl: ttl };
      const fields = typeof value === 'object' ? (value as Record<string, string>) : {};
      return Object.keys(fields).length === 0 ? { exists: false, pttl: -2 } : { exists: true, fields, pttl: ttl };
    },
    async notifyFlags() {
      const reply = (await client.call('CONFIG', 'GET', NOTIFY).catch(() => undefined)) as unknown;
      return Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : undefined;
    },
    close: () => client.disconnect(),
  };
}
