import { UnreachableError } from '../core/errors.js';
import { clusterPrimaries } from '../redis/cluster-detect.js';
import type { Connection, RedisClient } from '../redis/connection.js';
import { toCliError } from '../redis/errors.js';
import { probeStep, type KeyProbe } from './scan-probe.js';

// Walks a keyspace with SCAN (never KEYS: it blocks the server for the whole keyspace). On
// Cluster every primary is scanned on its own connection, because SCAN only sees the node it runs
// on; replicas hold the same keys and are skipped.

/** SCAN's COUNT: about 1000 keys per round trip keeps each step around a millisecond of server time. */
export const DEFAULT_SCAN_COUNT = 1000;
/** --scan-count: a COUNT far above the default makes each SCAN step hold the server for long. */
export const SCAN_COUNT_BOUNDS = { min: 1, max: 100_000 } as const;

/** A plain node connection: the standalone client, or one Cluster primary. */
export type NodeClient = Exclude<RedisClient, { nodes: unknown }>;

/** One primary being scanned. */
export interface ScanSource {
  /** host:port of the node. */
  readonly label: string;
  readonly client: NodeClient;
  /** Cluster: the slot ranges it serves, for saying what is missing when it does not answer. */
  readonly slots?: string | undefined;
}

/** A Cluster primary whose keys could not be read: ls and doctor name it and exit 9 (partial). */
export interface UnreadNode {
  readonly node: string;
  readonly slots: string;
  readonly reason: string;
}

export interface KeyBatch {
  readonly source: ScanSource;
  /** Key names as bytes (a name need not be UTF-8). */
  readonly keys: readonly Buffer[];
  /** What the probe saw for each key, in the same order. */
  readonly probes: readonly KeyProbe[];
}

export interface ScanOptions {
  /** SCAN MATCH glob; `*` for everything. */
  readonly pattern: string;
  readonly count?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** A Cluster primary failed: the scan goes on with the others. Without it, the error is thrown. */
  readonly onUnread?: ((node: UnreadNode) => void) | undefined;
}

function isCluster(client: RedisClient): client is Extract<RedisClient, { nodes: unknown }> {
  return typeof (client as { nodes?: unknown }).nodes === 'function';
}

const labelOf = (client: NodeClient): string => `${client.options.host}:${client.options.port}`;

/** The nodes that own keys: the standalone server, or every Cluster primary that has a connection. */
export function scanSources(conn: Connection): ScanSource[] {
  return sourcesAndMissing(conn).sources;
}

/**
 * Cluster primaries by the slot map, not by the connections ioredis keeps: a primary that refused
 * us has no connection any more, and listing only the others would be a quiet half answer.
 */
export function sourcesAndMissing(conn: Connection): { sources: ScanSource[]; missing: UnreadNode[] } {
  if (!isCluster(conn.client)) return { sources: [{ label: conn.label, client: conn.client }], missing: [] };
  const clients = new Map(conn.client.nodes('master').map((client) => [labelOf(client), client]));
  const sources: ScanSource[] = [];
  const missing: UnreadNode[] = [];
  for (const { node, slots } of clusterPrimaries(conn.client.slots)) {
    const client = clients.get(node);
    if (client && client.status !== 'end') sources.push({ label: node, client, slots });
    else missing.push({ node, slots, reason: 'not reachable' });
  }
  return { sources, missing };
}

/**
 * Why a Cluster node's keys could not be read, when that is the failure (refused, closed, timed
 * out, or the Cluster refusing reads while a node is down); undefined for any other error.
 */
export function unreadReason(err: unknown, node: string): string | undefined {
  const message = err instanceof Error ? err.message : String(err);
  // Also once the connection has named it: "Redis Cluster at ... is down (CLUSTERDOWN ...)".
  if (/(^|\()CLUSTERDOWN|while the cluster is down/.test(message)) return 'the Cluster refuses reads while a primary is down (CLUSTERDOWN)';
  const cli = toCliError(err, node);
  // The Cluster connection names its errors after the whole Cluster; this one is about one node.
  return cli instanceof UnreachableError ? cli.message.replace(/\bcluster [^\s,]+(,[^\s,]+)*/, node) : undefined;
}

/**
 * Every key matching the pattern, one batch per SCAN step, node after node. The next step is
 * sent as soon as the cursor is known, so the server works on it while the caller classifies
 * this batch. SCAN may return a key twice (when the table is rehashed mid-scan): callers
 * de-duplicate what they keep. Each node's loop ends when its cursor comes back to 0, which SCAN
 * guarantees.
 */
export async function* scanBatches(conn: Connection, opts: ScanOptions): AsyncGenerator<KeyBatch> {
  const count = opts.count ?? DEFAULT_SCAN_COUNT;
  const { sources, missing } = sourcesAndMissing(conn);
  for (const node of missing) reportUnread(opts, node, undefined);
  for (const source of sources) {
    const step = (cursor: string) => probeStep(source.client, cursor, opts.pattern, count);
    let pending = step('0');
    try {
      for (;;) {
        const { cursor, keys, probes } = await pending;
        if (cursor !== '0') pending = step(cursor);
        if (opts.signal?.aborted) return;
        if (keys.length > 0) yield { source, keys, probes };
        if (cursor === '0') break;
      }
    } catch (err) {
      const reason = source.slots !== undefined ? unreadReason(err, source.label) : undefined;
      if (reason === undefined) throw err;
      reportUnread(opts, { node: source.label, slots: source.slots!, reason }, err);
    } finally {
      // A caller that stops early (--limit) leaves one step in flight: its failure is nobody's business.
      pending.catch(() => undefined);
    }
  }
}

/** Hands an unread node to the caller, or fails the scan when the caller cannot take a partial answer. */
export function reportUnread(opts: { readonly onUnread?: ((node: UnreadNode) => void) | undefined }, node: UnreadNode, err: unknown): void {
  if (!opts.onUnread) throw err ?? new UnreachableError(`cannot reach Cluster primary ${node.node} (slots ${node.slots})`);
  opts.onUnread(node);
}
