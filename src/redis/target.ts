import { UsageError } from '../core/errors.js';
import type { TlsFiles } from './tls.js';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** Where and how to connect; credentials stay here and never reach a message. */
export interface TargetSpec {
  readonly url: string;
  readonly sentinels?: readonly HostPort[] | undefined;
  readonly masterName?: string | undefined;
  readonly clusterNodes?: readonly HostPort[] | undefined;
  /** --timeout: how long to wait for each reply (connection.ts has the default). */
  readonly replyTimeoutMs?: number | undefined;
  /** --cacert/--cert/--key/--insecure; TLS itself is the rediss:// scheme (or --tls). */
  readonly tls?: TlsFiles | undefined;
}

export interface ParsedUrl extends HostPort {
  readonly tls: boolean;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly db: number;
}

export const DEFAULT_URL = 'redis://127.0.0.1:6379';

/**
 * How long a command waits for Redis's reply (`--timeout`): a server that accepts connections but
 * never answers (paused, wedged) must end a one-shot command with exit 3, not hang it.
 */
export const DEFAULT_REPLY_TIMEOUT_MS = 5000;

/** Parses `redis://[user:password@]host[:port][/db]` or `rediss://...` (TLS). */
export function parseRedisUrl(text: string): ParsedUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`invalid Redis URL: expected redis://[user:password@]host:port[/db] or rediss://...`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new UsageError(`invalid Redis URL scheme "${url.protocol}": use redis:// or rediss://`);
  }
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d+$/.test(dbText)) {
    throw new UsageError(`invalid database "${dbText}" in Redis URL: expected a number, e.g. redis://host:6379/2`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new UsageError('invalid Redis URL: no host');
  return {
    host,
    port: url.port === '' ? 6379 : Number(url.port),
    tls: url.protocol === 'rediss:',
    username: url.username === '' ? undefined : decodeURIComponent(url.username),
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
    db: dbText === '' ? 0 : Number(dbText),
  };
}

/** Parses `host:port,host:port` (IPv6 as `[::1]:port`). */
export function parseHostList(text: string, option: string): HostPort[] {
  const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`${option} needs at least one host:port`);
  return items.map((item) => {
    const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(item);
    const port = match ? Number(match[3]) : NaN;
    if (!match || port < 1 || port > 65535) {
      throw new UsageError(`invalid ${option} entry "${item}": expected host:port, e.g. 127.0.0.1:26379`);
    }
    return { host: match[1] ?? match[2]!, port };
  });
}

export function formatHostPort({ host, port }: HostPort): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A password-free description of the target for messages and the owner memory. */
export function describeTarget(spec: TargetSpec): string {
  if (spec.clusterNodes) return `cluster ${spec.clusterNodes.map(formatHostPort).join(',')}`;
  const url = parseRedisUrl(spec.url);
  const db = url.db === 0 ? '' : `/${url.db}`;
  if (spec.sentinels) {
    return `sentinel ${spec.sentinels.map(formatHostPort).join(',')} master ${spec.masterName ?? '?'}${db}`;
  }
  return `${formatHostPort(url)}${db}`;
}

const SENTINEL_URL = /^(rediss?)-sentinel:\/\/(?:([^@/]*)@)?([^/#?]+)(?:\/(\d+))?\/?#(.+)$/i;

/**
 * `redis-sentinel://[user:password@]host:port,host:port[/db]#master` (the form Lettuce reads and
 * `sandbox up` prints; `rediss-sentinel://` for TLS) as a spec: the sentinels, the master name,
 * and a redis:// URL carrying the credentials and db for the master. Undefined for other schemes.
 */
export function parseSentinelUrl(text: string): TargetSpec | undefined {
  if (!/^rediss?-sentinel:/i.test(text)) return undefined;
  const match = SENTINEL_URL.exec(text);
  if (!match) {
    throw new UsageError('invalid Sentinel URL: expected redis-sentinel://[user:password@]host:port,host:port[/db]#master-name');
  }
  const [, scheme, auth, hosts, db, master] = match;
  const sentinels = parseHostList(hosts!, 'redis-sentinel://');
  // The host in this URL is a placeholder: ioredis asks the sentinels for the master's address.
  return {
    url: `${scheme!.toLowerCase()}://${auth ? `${auth}@` : ''}${formatHostPort(sentinels[0]!)}${db ? `/${db}` : ''}`,
    sentinels,
    masterName: decodeURIComponent(master!),
  };
}
