import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { beforeDeadline } from '../core/deadline.js';
import { CliError, UsageError } from '../core/errors.js';
import { clusterSeedSpec, isClusterNode } from './cluster-detect.js';
import { noSlotsError, toCliError } from './errors.js';
import { describeReplyError, nameReplyErrors } from './reply-errors.js';
import { unknownMasterError } from './sentinel-masters.js';
import { atNode, DEFAULT_REPLY_TIMEOUT_MS, describeEndpoint, type Endpoint, type HostPort } from '../core/endpoint.js';
import { tlsOptions } from './tls.js';
import { certificateRefusal } from './tls-refusal.js';

export type RedisClient = Redis | Cluster;
export type Topology = 'standalone' | 'sentinel' | 'cluster';

/**
 * `one-shot` connections fail fast (no reconnect loop when Redis is down); `long-lived` ones
 * (hold, watch, REPL) reconnect with back-off and report it through `onReconnecting`.
 */
export type ConnectMode = 'one-shot' | 'long-lived';

export interface ConnectOptions {
  readonly mode: ConnectMode;
  /** CLIENT SETNAME, so operators can tell our connections apart in CLIENT LIST. */
  readonly name?: string;
  readonly connectTimeoutMs?: number;
  /** false: stay on the node the URL names even if it is a Cluster node (reading one replica). */
  readonly followCluster?: boolean;
}

export interface Connection {
  readonly client: RedisClient;
  readonly topology: Topology;
  /** host:port (or the Sentinel / Cluster seeds) without credentials. */
  readonly label: string;
  /** The endpoint it was built from (a Cluster node's URL: the node it followed to). */
  readonly spec: Endpoint;
  /** How long each reply may take (--timeout); undefined: unbounded (long-lived, no --timeout). */
  readonly replyTimeoutMs: number | undefined;
  /** A second connection to the same target with the same credentials (e.g. for SUBSCRIBE). */
  duplicate(name?: string): Promise<Connection>;
  /**
   * Set when the node could not be reached at start-up (Redlock tolerates a minority of those):
   * every operation on it should report this error instead of sending anything.
   */
  readonly offline?: CliError | undefined;
  /** Runs `fn` when this connection closes (used to close the subscribers that belong to it). */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

/**
 * Hands out connections instead of connect(): the REPL passes a per-client pool through
 * RunContext.connections, so every command of one client shares one long-lived connection.
 * Closing a pooled connection is a no-op; the pool closes them when the REPL ends.
 */
export interface ConnectionProvider {
  open(spec: Endpoint, opts: ConnectOptions): Promise<Connection>;
}

const ONE_SHOT_TIMEOUT_MS = 3000;

/** The reply timeout a connection uses: the spec's (--timeout), else the default for one-shot commands. */
export function replyTimeoutOf(spec: Endpoint, mode: ConnectMode): number | undefined {
  return spec.replyTimeoutMs ?? (mode === 'one-shot' ? DEFAULT_REPLY_TIMEOUT_MS : undefined);
}

// ioredis waits this long for a socket to close after QUIT or a failed connect before it destroys
// it (default 2 s): a refused one-shot connection would keep the process alive that long after
// the error was printed, and a paused server never sends the FIN it waits for.
const DISCONNECT_TIMEOUT_MS = 100;

/** The ioredis options for the endpoint's credentials, database and TLS: the same for every kind of connection. */
function linkOptions(ep: Endpoint): RedisOptions {
  return {
    username: ep.username,
    password: ep.password,
    db: ep.db,
    ...(ep.tls ? { tls: tlsOptions(ep.host, ep.tlsFiles) } : {}),
  };
}

/** How an ioredis client behaves: its timeouts, whether it reconnects, its CLIENT SETNAME. */
function behaviourOptions(mode: ConnectMode, name: string, connectTimeoutMs: number | undefined, replyTimeoutMs: number | undefined): RedisOptions {
  const oneShot = mode === 'one-shot';
  return {
    ...(replyTimeoutMs !== undefined ? { commandTimeout: replyTimeoutMs } : {}),
    lazyConnect: true,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    connectTimeout: connectTimeoutMs ?? ONE_SHOT_TIMEOUT_MS,
    connectionName: name,
    retryStrategy: oneShot ? () => null : (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 3000),
    maxRetriesPerRequest: oneShot ? 0 : null,
    // ioredis probes INFO before the first command; our scripts tolerate a loading replica poorly anyway.
    enableReadyCheck: true,
  };
}

function baseOptions(spec: Endpoint, opts: ConnectOptions): RedisOptions {
  return {
    ...behaviourOptions(opts.mode, opts.name ?? 'redlock-cli', opts.connectTimeoutMs, replyTimeoutOf(spec, opts.mode)),
    ...linkOptions(spec),
  };
}

/** How long one sentinel may take to name the master before the next one is asked. */
function sentinelReplyTimeoutMs(spec: Endpoint, opts: ConnectOptions): number {
  return replyTimeoutOf(spec, opts.mode) ?? opts.connectTimeoutMs ?? ONE_SHOT_TIMEOUT_MS;
}

/**
 * How long connecting may take before it fails with exit 3: one reply timeout for the handshake
 * with the server, plus one for each sentinel that may be asked first and not answer (the sentinels
 * ioredis learns about from the first that answers are asked only after every given one failed).
 */
function connectDeadlineMs(spec: Endpoint, opts: ConnectOptions): number | undefined {
  const replyTimeoutMs = replyTimeoutOf(spec, opts.mode);
  if (replyTimeoutMs === undefined || !spec.sentinels) return replyTimeoutMs;
  return replyTimeoutMs + spec.sentinels.length * sentinelReplyTimeoutMs(spec, opts);
}

function buildClient(spec: Endpoint, opts: ConnectOptions): { client: RedisClient; topology: Topology } {
  const base = baseOptions(spec, opts);
  if (spec.clusterNodes) {
    if (spec.db !== 0) throw new UsageError('Redis Cluster has only database 0: remove the /db from --url');
    const clusterOptions: ClusterOptions = {
      lazyConnect: true,
      redisOptions: { ...base, lazyConnect: false, db: 0 },
      clusterRetryStrategy: opts.mode === 'one-shot' ? () => null : (times: number) => Math.min(100 * times, 2000),
      enableOfflineQueue: true,
      slotsRefreshTimeout: opts.connectTimeoutMs ?? ONE_SHOT_TIMEOUT_MS,
      // Its ready check fails on cluster_state:fail (a primary down) and then never settles
      // connect(): the live primaries must stay readable for ls/doctor to report a partial answer.
      enableReadyCheck: false,
    };
    return { client: new Cluster([...spec.clusterNodes], clusterOptions), topology: 'cluster' };
  }
  if (spec.sentinels) {
    if (!spec.masterName) throw new UsageError('--sentinel needs --master-name <name> (the monitored master)');
    return {
      client: new Redis({
        ...base,
        sentinels: [...spec.sentinels],
        name: spec.masterName,
        // ioredis asks the sentinels one after another and, without this, waits forever for a
        // paused one (its socket still accepts): bounded, the next sentinel is asked instead.
        sentinelCommandTimeout: sentinelReplyTimeoutMs(spec, opts),
        sentinelRetryStrategy: opts.mode === 'one-shot' ? () => null : (times: number) => Math.min(200 * times, 2000),
        sentinelMaxConnections: 3,
        // Over TLS the sentinels and the master they name are both reached with the endpoint's
        // files; each socket verifies its own host (the endpoint's host is only a placeholder).
        ...(spec.tls ? { tls: tlsOptions(undefined, spec.tlsFiles), sentinelTLS: tlsOptions(undefined, spec.tlsFiles), enableTLSForSentinelMode: true } : {}),
      }),
      topology: 'sentinel',
    };
  }
  return { client: new Redis({ ...base, host: spec.host, port: spec.port }), topology: 'standalone' };
}

/**
 * ioredis sends SELECT on connect but only emits its failure as an event, and every command
 * after it then runs in db 0. Asking again and waiting for the answer makes a database the
 * server does not have (`/99` on a 16-database server) a usage error before anything is sent.
 */
async function selectDatabase(client: Redis, db: number, label: string): Promise<void> {
  try {
    await client.select(db);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/DB index is out of range|invalid DB index/i.test(message)) {
      throw new UsageError(`database ${db} does not exist at ${label} (${message}): use a lower number in the URL's /db`);
    }
    throw err;
  }
}

/**
 * Connects and waits until the target answers; failures become exit-code-3 CliErrors. A plain URL
 * that turns out to name a Cluster node is reconnected as that Cluster.
 */
export async function connect(spec: Endpoint, opts: ConnectOptions): Promise<Connection> {
  const first = await connectAsGiven(spec, opts);
  if (first.topology !== 'standalone' || opts.followCluster === false || !(await isClusterNode(first.client as Redis))) return first;
  await first.close();
  return connectAsGiven(clusterSeedSpec(spec), opts);
}

/** Any primary answering is a Cluster reached: one that is down is for ls and doctor to report (exit 9), not a failed connect. */
async function pingCluster(cluster: Cluster, label: string): Promise<void> {
  const primaries = cluster.nodes('master');
  // The seeds answered (connect() read their slot map) but no node serves a slot: a Cluster not formed yet.
  if (primaries.length === 0) throw noSlotsError(label);
  await Promise.any(primaries.map((node) => node.ping()));
}

// What ioredis says both when no sentinel answered and when none knows the master's name.
const SENTINELS_FAILED = /All sentinels are unreachable/i;

async function connectAsGiven(spec: Endpoint, opts: ConnectOptions): Promise<Connection> {
  const label = describeEndpoint(spec);
  const { client, topology } = buildClient(spec, opts);
  let lastError: unknown;
  // Without a listener ioredis prints "Unhandled error event" for every failed attempt.
  client.on('error', (err: unknown) => {
    lastError = err;
  });
  const replyTimeoutMs = replyTimeoutOf(spec, opts.mode);
  // Set once a reply timed out: the server is wedged, so closing must not wait for QUIT's reply.
  let unresponsive = false;
  nameReplyErrors(client, label, replyTimeoutMs, () => (unresponsive = true));
  try {
    // The handshake (SETNAME, the ready check) is several round trips: bound it as a whole.
    await beforeDeadline(client.connect(), connectDeadlineMs(spec, opts), () => {
      throw describeReplyError(new Error('Command timed out'), label, replyTimeoutMs);
    });
    if (topology === 'cluster') await pingCluster(client as Cluster, label);
    else if (spec.db !== 0) await selectDatabase(client as Redis, spec.db, label);
  } catch (err) {
    client.disconnect();
    // The server's TLS alert (after the handshake) says why, where the command saw only a closed connection.
    const refused = await certificateRefusal(spec, label, lastError ?? err, () => rawSocket(nodeEndpoint(spec, spec, 'redlock-cli:tls-probe')).socket);
    if (refused) throw refused;
    const cause = err instanceof CliError ? err : (lastError ?? err);
    if (topology === 'sentinel' && SENTINELS_FAILED.test(String(cause))) {
      const timeoutMs = sentinelReplyTimeoutMs(spec, opts);
      const open = (s: HostPort) => nodeClient(nodeEndpoint(spec, s, 'redlock-cli:sentinel-probe', { credentials: false }), 'one-shot', { connectTimeoutMs: timeoutMs, replyTimeoutMs: timeoutMs });
      throw (await unknownMasterError(spec.sentinels ?? [], spec.masterName ?? '', open)) ?? toCliError(cause, label);
    }
    throw toCliError(cause, label);
  }
  const closers: (() => Promise<void>)[] = [];
  const connection: Connection = {
    client,
    topology,
    label,
    spec,
    replyTimeoutMs,
    duplicate: (name) => connect(spec, { ...opts, ...(name ? { name } : {}) }),
    onClose: (fn) => void closers.push(fn),
    close: async () => {
      await Promise.all(closers.splice(0).map((fn) => fn().catch(() => undefined)));
      if (unresponsive) return client.disconnect();
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
  return connection;
}

/** A stand-in for a node that did not answer at start-up: it never connects and carries the error. */
export function offlineConnection(spec: Endpoint, error: CliError): Connection {
  const client = new Redis({ host: spec.host, port: spec.port, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
  return {
    client,
    topology: 'standalone',
    label: describeEndpoint(spec),
    spec,
    replyTimeoutMs: undefined,
    offline: error,
    duplicate: () => Promise.reject(error),
    onClose: () => undefined,
    close: async () => client.disconnect(),
  };
}

// Connections to one node of the target outside connect(): trace's MONITOR and keyspace
// connections, its reads on each primary, the sentinels it asks, a Cluster node's SSUBSCRIBE.
// They get their credentials, database, TLS files and timeouts here, from the target, as
// connect()'s clients do: a node reached another way would drop --cacert or --timeout.

/** One node of a target (a Cluster primary, Sentinel's master, a sentinel) and how to reach it. */
export interface NodeEndpoint extends Endpoint {
  /** CLIENT SETNAME, so operators can tell our connections apart in CLIENT LIST. */
  readonly name: string;
  readonly connectTimeoutMs?: number | undefined;
}

/**
 * `node` reached as `spec` says. A sentinel (`credentials: false`) gets the TLS settings and
 * timeouts but not the master's user, password and database, which it does not know.
 */
export function nodeEndpoint(spec: Endpoint, node: HostPort, name: string, { credentials = true } = {}): NodeEndpoint {
  const one = atNode(spec, node);
  return { ...one, ...(credentials ? {} : { username: undefined, password: undefined, passwordFrom: undefined, db: 0 }), name };
}

/** An ioredis client for one node; --timeout, when given, wins over the caller's `defaults`. */
export function nodeClient(ep: NodeEndpoint, mode: ConnectMode, defaults: { connectTimeoutMs?: number | undefined; replyTimeoutMs?: number | undefined } = {}): Redis {
  const client = new Redis({
    ...behaviourOptions(mode, ep.name, ep.connectTimeoutMs ?? defaults.connectTimeoutMs, ep.replyTimeoutMs ?? defaults.replyTimeoutMs),
    ...linkOptions(ep),
    host: ep.host,
    port: ep.port,
  });
  // Callers learn of failures from their commands; without a listener ioredis prints each one.
  client.on('error', () => undefined);
  return client;
}

/** A plain socket speaking RESP to one node (MONITOR), and the commands that open the session. */
export interface RawSocket {
  readonly socket: Socket;
  /** The event after which `handshake` may be written. */
  readonly connectedEvent: 'connect' | 'secureConnect';
  /** AUTH, CLIENT SETNAME and SELECT, each answered with one reply line. */
  readonly handshake: readonly (readonly string[])[];
  /** How long the connect and the handshake's replies may take together. */
  readonly handshakeTimeoutMs: number;
}

/** Opens a socket to the node with the TLS files and verification of every other connection. */
export function rawSocket(ep: NodeEndpoint): RawSocket {
  const tls = ep.tls === true;
  const handshake: string[][] = [];
  if (ep.password !== undefined) handshake.push(ep.username ? ['AUTH', ep.username, ep.password] : ['AUTH', ep.password]);
  handshake.push(['CLIENT', 'SETNAME', ep.name]);
  if (ep.db) handshake.push(['SELECT', String(ep.db)]);
  return {
    socket: tls ? tlsConnect({ host: ep.host, port: ep.port, ...tlsOptions(ep.host, ep.tlsFiles) }) : netConnect({ host: ep.host, port: ep.port }),
    connectedEvent: tls ? 'secureConnect' : 'connect',
    handshake,
    // As for connect(): --timeout bounds the whole handshake when it is given.
    handshakeTimeoutMs: ep.replyTimeoutMs ?? ep.connectTimeoutMs ?? ONE_SHOT_TIMEOUT_MS,
  };
}
