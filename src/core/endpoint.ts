// The endpoint: where and how every connection of one command (or REPL client) goes, resolved
// once from the flags, the environment, a saved target, a sandbox or the REPL's target, and handed
// as one typed value to the connection factory (src/redis/connection.ts). Connection strings are
// parsed here and nowhere else: a URL becomes an Endpoint on the way in, and an Endpoint is
// written back as a URL only to show it (masked) or to save it.

import { UsageError } from './errors.js';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** redis-cli's TLS flags: files by path (read when connecting) and --insecure. */
export interface TlsFiles {
  /** --cacert: trust this CA (instead of the system's list, as redis-cli does). */
  readonly ca?: string | undefined;
  /** --cert / --key: a client certificate, for servers with tls-auth-clients yes. */
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  /** --insecure: skip verifying the server certificate, as redis-cli does. */
  readonly insecure?: boolean | undefined;
}

/** Where the password came from: a hint that reconnects must ask again for one typed on the line. */
export type PasswordSource = 'url' | 'flag' | 'prompt' | 'env' | 'target';

/** Where and how to connect; credentials stay here and never reach a message. */
export interface Endpoint extends HostPort {
  /** rediss:// or --tls. */
  readonly tls: boolean;
  /** --cacert/--cert/--key/--insecure. */
  readonly tlsFiles?: TlsFiles | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly passwordFrom?: PasswordSource | undefined;
  readonly db: number;
  /** Sentinel: ask these for the master's address (host/port above are then a placeholder). */
  readonly sentinels?: readonly HostPort[] | undefined;
  readonly masterName?: string | undefined;
  /** Cluster: its seed nodes. */
  readonly clusterNodes?: readonly HostPort[] | undefined;
  /** --timeout: how long to wait for each reply (the factory has the default). */
  readonly replyTimeoutMs?: number | undefined;
}

export const DEFAULT_URL = 'redis://127.0.0.1:6379';

/**
 * How long a command waits for Redis's reply (`--timeout`): a server that accepts connections but
 * never answers (paused, wedged) must end a one-shot command with exit 3, not hang it.
 */
export const DEFAULT_REPLY_TIMEOUT_MS = 5000;

const URL_FORMS = 'redis://[user:password@]host:port[/db], rediss://... or redis-sentinel://host:port,...#master';
const SENTINEL_URL = /^(rediss?)-sentinel:\/\/(?:([^@/]*)@)?([^/#?]+)(?:\/(\d+))?\/?#(.+)$/i;

const decoded = (text: string): string | undefined => (text === '' ? undefined : decodeURIComponent(text));

/**
 * The one connection-string parser: `redis://[user:password@]host[:port][/db]`, `rediss://` (TLS),
 * or `redis-sentinel://[user:password@]host:port,host:port[/db]#master` (the form Lettuce reads and
 * `sandbox up` prints; `rediss-sentinel://` for TLS). `bare: true` reads `host:port` as redis://.
 */
export function parseEndpointUrl(text: string, opts: { readonly bare?: boolean } = {}): Endpoint {
  if (/^rediss?-sentinel:/i.test(text)) return parseSentinelUrl(text);
  const withScheme = opts.bare && !text.includes('://') ? `redis://${text}` : text;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`invalid Redis URL: expected ${URL_FORMS}`);
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
  const password = decoded(url.password);
  return {
    host,
    port: url.port === '' ? 6379 : Number(url.port),
    tls: url.protocol === 'rediss:',
    username: decoded(url.username),
    password,
    ...(password !== undefined ? { passwordFrom: 'url' as const } : {}),
    db: dbText === '' ? 0 : Number(dbText),
  };
}

function parseSentinelUrl(text: string): Endpoint {
  const match = SENTINEL_URL.exec(text);
  if (!match) throw new UsageError('invalid Sentinel URL: expected redis-sentinel://[user:password@]host:port,host:port[/db]#master-name');
  const [, scheme, auth, hosts, db, master] = match;
  const sentinels = parseHostList(hosts!, 'redis-sentinel://');
  // The host of the master is a placeholder: the sentinels name the master's address.
  const master0 = parseEndpointUrl(`${scheme!.toLowerCase()}://${auth ? `${auth}@` : ''}${formatHostPort(sentinels[0]!)}${db ? `/${db}` : ''}`);
  return { ...master0, sentinels, masterName: decodeURIComponent(master!) };
}

/**
 * One `host:port` (IPv6 as `[::1]:port`), port 0 to 65535, or undefined. `:port` alone takes
 * `defaultHost` when one is given (a listening address), else it is no match.
 */
export function matchHostPort(text: string, defaultHost?: string): HostPort | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:\s[\]]*)):(\d{1,5})$/.exec(text);
  const host = match ? (match[1] ?? (match[2] || defaultHost)) : undefined;
  const port = match ? Number(match[3]) : NaN;
  return host === undefined || port > 65535 ? undefined : { host, port };
}

/** Parses `host:port,host:port` (IPv6 as `[::1]:port`). */
export function parseHostList(text: string, option: string): HostPort[] {
  const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`${option} needs at least one host:port`);
  return items.map((item) => {
    const hostPort = matchHostPort(item);
    if (!hostPort || hostPort.port < 1) {
      throw new UsageError(`invalid ${option} entry "${item}": expected host:port, e.g. 127.0.0.1:26379`);
    }
    return hostPort;
  });
}

/** A comma-separated list of URLs (Redlock's --nodes), each parsed; a bare host:port is redis://. */
export function parseEndpointList(text: string): Endpoint[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '').map((u) => parseEndpointUrl(u, { bare: true }));
}

export function formatHostPort({ host, port }: HostPort): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A password-free description of the endpoint for messages and the owner memory. */
export function describeEndpoint(ep: Endpoint): string {
  if (ep.clusterNodes) return `cluster ${ep.clusterNodes.map(formatHostPort).join(',')}`;
  const db = ep.db === 0 ? '' : `/${ep.db}`;
  if (ep.sentinels) return `sentinel ${ep.sentinels.map(formatHostPort).join(',')} master ${ep.masterName ?? '?'}${db}`;
  return `${formatHostPort(ep)}${db}`;
}

/**
 * The endpoint as a URL, to save or to show: `password` says whether its password is kept, shown
 * as `***`, or left out. A Sentinel endpoint is written as redis-sentinel://; a Cluster's seeds
 * are not a URL's (the saved target keeps them apart), so its URL names its credentials and TLS.
 */
export function endpointUrl(ep: Endpoint, password: 'keep' | 'mask' | 'drop'): string {
  const user = ep.username !== undefined ? encodeURIComponent(ep.username) : '';
  const secret = ep.password === undefined || password === 'drop' ? '' : password === 'mask' ? '***' : encodeURIComponent(ep.password);
  const auth = user !== '' || secret !== '' ? `${user}${secret !== '' ? `:${secret}` : ''}@` : '';
  const db = ep.db === 0 ? '' : `/${ep.db}`;
  const scheme = ep.tls ? 'rediss' : 'redis';
  if (ep.sentinels) {
    return `${scheme}-sentinel://${auth}${ep.sentinels.map(formatHostPort).join(',')}${db}#${encodeURIComponent(ep.masterName ?? '')}`;
  }
  return `${scheme}://${auth}${formatHostPort(ep)}${db}`;
}

/** The same servers and credentials, reached at another node (a replica, a Cluster primary). */
export function atNode(ep: Endpoint, node: HostPort): Endpoint {
  const { sentinels: _s, masterName: _m, clusterNodes: _c, ...one } = ep;
  return { ...one, host: node.host, port: node.port };
}

/** The endpoint as a key (a pool's): everything that makes two connections different. */
export const endpointKey = (ep: Endpoint): string =>
  JSON.stringify([ep.host, ep.port, ep.tls, ep.tlsFiles ?? null, ep.username ?? null, ep.password ?? null, ep.db, ep.sentinels ?? null, ep.masterName ?? null, ep.clusterNodes ?? null, ep.replyTimeoutMs ?? null]);

/** A plain local server on a port (the sandbox's nodes, its fault proxy). */
export const loopbackEndpoint = (port: number): Endpoint => ({ host: '127.0.0.1', port, tls: false, db: 0 });
