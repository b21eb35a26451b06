import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { UsageError } from '../core/errors.js';
import { ExportFold } from '../core/export/fold.js';
import { LockGrouper, type GroupRule } from '../core/export/groups.js';
import type { Poller } from '../core/poller.js';
import type { TraceEvent } from '../core/trace/events.js';
import { connect, type Connection } from '../redis/connection.js';
import { describeTarget, type TargetSpec } from '../redis/target.js';
import { ExportMetrics, SERIES_PER_LABEL_SET } from './export-metrics.js';
import { startOrphanScan } from './export-orphans.js';
import { startPollFeed } from './export-poll.js';
import type { TraceSourceKind } from './feed.js';
import { TraceSource } from './source.js';

// `export`'s run: an HTTP server for Prometheus (/metrics) fed by the trace's live source
// (MONITOR or keyspace notifications, every Cluster primary, the Sentinel master across a
// failover, reconnecting after a restart) or by polling the keyspace, through the fold of
// core/export. It never writes to Redis: the source sends what `trace` sends, polls and orphan
// scans send ls's and doctor's reads. It ends when the signal aborts, with its sockets closed.

export type ExportSource = TraceSourceKind | 'poll';

export interface ExportOptions {
  readonly spec: TargetSpec;
  /** The lock-name glob (SCAN MATCH for polls), and its matcher. */
  readonly pattern: string;
  readonly wants: (lock: string) => boolean;
  readonly source: ExportSource;
  readonly enableNotifications?: boolean | undefined;
  readonly listen: { readonly host: string; readonly port: number };
  readonly rules: readonly GroupRule[];
  readonly groupCap: number;
  readonly pollMs: number;
  /** Orphan companion scan interval; 0: none. */
  readonly orphanScanMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly onStatus: (text: string) => void;
  readonly onStart: (start: ExportStart) => void;
}

export interface ExportStart {
  /** http://host:port/metrics, with the port actually bound. */
  readonly url: string;
  /** What is followed: "the server (127.0.0.1:6379)". */
  readonly what: string;
  readonly seriesPerGroup: number;
  /** Lock series at most: (cap + other) groups x series per group, for one kind and library each. */
  readonly seriesMax: number;
}

/** Server time (epoch ms) now, estimated from the newest event's time and when it arrived. */
class ServerClock {
  private offset = 0;

  saw(serverT: number): void {
    this.offset = Date.now() - serverT;
  }

  now(): number {
    return Date.now() - this.offset;
  }
}

export async function runExporter(opts: ExportOptions): Promise<void> {
  const metrics = new ExportMetrics(opts.groupCap);
  const grouper = new LockGrouper(opts.rules, opts.groupCap);
  const fold = new ExportFold(grouper, metrics);
  const clock = new ServerClock();
  const blind = new Set<string>();
  const take = (events: readonly TraceEvent[]) => {
    const newest = events.at(-1);
    if (newest) clock.saw(newest.t);
    for (const e of events) if (e.kind === 'blind') blind.add(e.node ?? '*');
    else if (e.kind === 'unblind') blind.delete(e.node ?? '*');
    metrics.events.inc(events.length);
    fold.push(events);
  };
  let source: TraceSource | undefined;
  let conn: Connection | undefined;
  let reconnectsSeen = 0;
  const pollers: Poller[] = [];

  const scrape = async (): Promise<string> => {
    const now = clock.now();
    fold.sweep(now);
    metrics.setGauges(fold.gauges(now));
    const stats = source?.stats;
    if (stats) {
      metrics.lag.set(stats.lagMs / 1000);
      metrics.up.set(stats.recovering ? 0 : 1);
      if (stats.reconnects > reconnectsSeen) metrics.reconnects.inc(stats.reconnects - reconnectsSeen);
      reconnectsSeen = stats.reconnects;
    }
    metrics.blind.set(blind.size);
    metrics.groups.set(grouper.size);
    metrics.overflow.set(grouper.overflowed);
    return metrics.text();
  };
  const server = await listen(opts.listen, (req, res) => void answer(req, res, scrape));
  try {
    if (opts.source === 'poll' || opts.orphanScanMs > 0) conn = await connect(opts.spec, { mode: 'long-lived', name: 'redlock-cli:export' });
    let what: string;
    if (opts.source === 'poll') {
      what = `${describeTarget(opts.spec)} by polling every ${opts.pollMs / 1000} s`;
      const onEvents = (events: readonly TraceEvent[], now: number) => {
        clock.saw(now);
        take(events);
      };
      pollers.push(startPollFeed({ conn: conn!, pattern: opts.pattern, wants: opts.wants, intervalMs: opts.pollMs, onEvents, onStatus: opts.onStatus, onError: () => metrics.scanErrors.inc() }));
    } else {
      source = new TraceSource({ spec: opts.spec, wants: opts.wants, signal: opts.signal, source: opts.source, enableNotifications: opts.enableNotifications, onStatus: opts.onStatus, onEvents: take });
      what = await source.start();
    }
    if (opts.orphanScanMs > 0) {
      const onCount = (byLock: ReadonlyMap<string, number>) => {
        const byGroup = new Map<string, number>();
        for (const [lock, n] of byLock) {
          const group = grouper.groupOf(lock);
          byGroup.set(group, (byGroup.get(group) ?? 0) + n);
        }
        metrics.setOrphans(byGroup);
      };
      pollers.push(startOrphanScan({ conn: conn!, wants: opts.wants, intervalMs: opts.orphanScanMs, onCount, onError: () => metrics.scanErrors.inc() }));
    }
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : opts.listen.port;
    const host = opts.listen.host.includes(':') ? `[${opts.listen.host}]` : opts.listen.host;
    opts.onStart({ url: `http://${host}:${port}/metrics`, what, seriesPerGroup: SERIES_PER_LABEL_SET, seriesMax: (opts.groupCap + 1) * SERIES_PER_LABEL_SET });
    await aborted(opts.signal);
  } finally {
    for (const p of pollers) p.stop();
    await source?.stop();
    await conn?.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Binds the HTTP server; a port taken or a host not on this machine is a usage error naming --listen. */
async function listen(at: { readonly host: string; readonly port: number }, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  server.listen(at.port, at.host);
  try {
    await once(server, 'listening');
    return server;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'that port is in use' : code === 'EACCES' ? 'not allowed (a port below 1024 needs privileges)' : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? 'that address is not on this machine' : (err as Error).message;
    throw new UsageError(`--listen ${at.host}:${at.port}: cannot listen there: ${why}; pick another with --listen host:port`);
  }
}

/** GET /metrics: the scrape; GET /: a line pointing there; anything else 404. */
async function answer(req: IncomingMessage, res: ServerResponse, scrape: () => Promise<string>): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
  if (path === '/metrics') {
    try {
      const body = await scrape();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`scrape failed: ${(err as Error).message}\n`);
    }
    return;
  }
  if (path === '/') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('redlock-cli export: metrics at /metrics\n');
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
}

/** Resolves when the signal aborts (at once if it already has; never without one). */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}
