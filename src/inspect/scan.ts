import type { Connection, RedisClient } from '../redis/connection.js';
import { probeStep, type KeyProbe } from './scan-probe.js';

// Walks a keyspace with SCAN (never KEYS: it blocks the server for the whole keyspace). On
// Cluster every primary is scanned on its own connection, because SCAN only sees the node it runs
// on; replicas hold the same keys and are skipped.

/** SCAN's COUNT: about 1000 keys per round trip keeps each step around a millisecond of server time. */
export const DEFAULT_SCAN_COUNT = 1000;

/** A plain node connection: the standalone client, or one Cluster primary. */
export type NodeClient = Exclude<RedisClient, { nodes: unknown }>;

/** One primary being scanned. */
export interface ScanSource {
  /** host:port of the node. */
  readonly label: string;
  readonly client: NodeClient;
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
}

function isCluster(client: RedisClient): client is Extract<RedisClient, { nodes: unknown }> {
  return typeof (client as { nodes?: unknown }).nodes === 'function';
}

/** The nodes that own keys: the standalone server, or every Cluster primary. */
export function scanSources(conn: Connection): ScanSource[] {
  if (!isCluster(conn.client)) return [{ label: conn.label, client: conn.client }];
  return conn.client.nodes('master').map((client) => ({ label: `${client.options.host}:${client.options.port}`, client }));
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
  for (const source of scanSources(conn)) {
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
    } finally {
      // A caller that stops early (--limit) leaves one step in flight: its failure is nobody's business.
      pending.catch(() => undefined);
    }
  }
}
