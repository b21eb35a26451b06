import { setTimeout as sleep } from 'node:timers/promises';
import { TraceDecoder } from '../core/trace/decoder.js';
import type { TraceEvent } from '../core/trace/events.js';
import { parseMonitorLine } from '../core/trace/monitor-line.js';
import { openMonitor, type MonitorConnection, type MonitorEndpoint } from '../redis/monitor.js';
import { clientNames, keysPresent, sentinelMaster, tracePlan, type TracePlan } from '../redis/trace-nodes.js';
import { formatHostPort, type TargetSpec } from '../redis/target.js';

// The live source of `trace`: one MONITOR connection and one decoder per primary (every Cluster
// primary; Sentinel's master, followed across a failover). Lines are decoded as they arrive; a
// script run still open is completed when its connection goes quiet for a moment, and expiries
// are produced on a clock even when no line arrives.

export interface TraceSourceOptions {
  readonly spec: TargetSpec;
  readonly wants: (lock: string) => boolean;
  readonly onEvents: (events: readonly TraceEvent[]) => void;
  /** Status lines for stderr / the view: "following 3 primaries", "failover: ...". */
  readonly onStatus: (text: string) => void;
  readonly signal?: AbortSignal | undefined;
}

export interface SourceStats {
  readonly lines: number;
  /** Receive time minus the server's timestamp of the newest line, less the smallest such gap seen (clock offset). */
  readonly lagMs: number;
  readonly maxLagMs: number;
}

/** How long a connection must be quiet before an open script run counts as complete. */
const QUIET_MS = 50;
const TICK_MS = 100;
const TICK_MARGIN_MS = 1000;
const FAILOVER_WAIT_MS = 30_000;

interface Shard {
  decoder: TraceDecoder;
  endpoint: MonitorEndpoint;
  monitor: MonitorConnection | undefined;
  quiet: NodeJS.Timeout | undefined;
  /** Bumped on every batch received: a quiet check that sees it change knows data came in. */
  batches: number;
  /** Local time minus server time at the newest line (for the clock between lines). */
  offset: number;
}

export class TraceSource {
  private readonly shards: Shard[] = [];
  private plan: TracePlan | undefined;
  private lines = 0;
  private minGap = Number.POSITIVE_INFINITY;
  private lag = 0;
  private maxLag = 0;
  private ticker: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly opts: TraceSourceOptions) {}

  get stats(): SourceStats {
    return { lines: this.lines, lagMs: this.lag, maxLagMs: this.maxLag };
  }

  /** Connects to every primary and starts decoding; resolves once every MONITOR is running. */
  async start(): Promise<string> {
    this.plan = await tracePlan(this.opts.spec);
    const multi = this.plan.primaries.length > 1;
    for (const endpoint of this.plan.primaries) {
      const node = formatHostPort(endpoint);
      const names = await clientNames(endpoint);
      const shard: Shard = { decoder: new TraceDecoder({ wants: this.opts.wants, clientNames: names, ...(multi ? { node } : {}) }), endpoint, monitor: undefined, quiet: undefined, batches: 0, offset: 0 };
      this.shards.push(shard);
      await this.attach(shard);
    }
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    const what = this.plan.primaries.map(formatHostPort).join(', ');
    return `${this.plan.topology === 'cluster' ? `${this.plan.primaries.length} Cluster primaries` : this.plan.topology === 'sentinel' ? 'the Sentinel master' : 'the server'} (${what})`;
  }

  private async attach(shard: Shard): Promise<void> {
    const monitor = await openMonitor(shard.endpoint, (lines) => this.receive(shard, lines));
    shard.monitor = monitor;
    void monitor.ended.then((err) => {
      if (err && !this.stopped) void this.recover(shard, err);
    });
  }

  private receive(shard: Shard, raw: readonly string[]): void {
    const now = Date.now();
    const out: TraceEvent[] = [];
    let newest: number | undefined;
    for (const text of raw) {
      const line = parseMonitorLine(text);
      if (!line) continue;
      this.lines++;
      newest = line.t;
      out.push(...shard.decoder.push(line));
    }
    if (newest !== undefined) {
      const gap = now - newest;
      this.minGap = Math.min(this.minGap, gap);
      this.lag = gap - this.minGap;
      this.maxLag = Math.max(this.maxLag, this.lag);
      shard.offset = gap;
    }
    shard.batches++;
    if (shard.quiet) clearTimeout(shard.quiet);
    shard.quiet = setTimeout(() => this.quiet(shard), QUIET_MS + Math.min(2000, 2 * this.lag));
    this.emit(out);
  }

  /**
   * A script run still open when the connection went quiet is complete: Redis writes a script's
   * lines together. A timer can fire before a starved process has read data already waiting on
   * the socket (timers run before I/O in each turn of the event loop), so the run is closed only
   * after one more turn in which nothing was read.
   */
  private quiet(shard: Shard): void {
    const seen = shard.batches;
    setImmediate(() => {
      if (shard.batches === seen) this.emit(shard.decoder.flush());
    });
  }

  /**
   * Expiries while the stream is quiet. The server clock is estimated from the newest line, held
   * back by a margin: a renewal still in flight must never be beaten by an expiry it prevented.
   */
  private tick(): void {
    const margin = Math.max(TICK_MARGIN_MS, 2 * this.lag);
    for (const shard of this.shards) {
      if (shard.decoder.serverTime === 0) continue;
      this.emit(shard.decoder.tick(Date.now() - shard.offset - margin));
    }
  }

  private emit(events: readonly TraceEvent[]): void {
    if (events.length > 0) this.opts.onEvents(events);
  }

  /**
   * The MONITOR connection broke. Under Sentinel the master may have changed: wait for the
   * sentinels to name one, and if it is another node, check that every lock held on the old one
   * exists there (read-only EXISTS): the ones that do not were lost in the failover.
   */
  private async recover(shard: Shard, err: Error): Promise<void> {
    const old = formatHostPort(shard.endpoint);
    this.emit(shard.decoder.flush());
    this.opts.onStatus(`lost the MONITOR connection to ${old} (${err.message}); reconnecting`);
    const deadline = Date.now() + FAILOVER_WAIT_MS;
    while (!this.stopped && Date.now() < deadline) {
      try {
        if (this.plan?.topology === 'sentinel') {
          const master = await sentinelMaster(this.opts.spec);
          const now = formatHostPort(master);
          if (now !== old) {
            shard.endpoint = { ...shard.endpoint, host: master.host, port: master.port };
            await this.failedOver(shard, old, now);
            return;
          }
        }
        await this.attach(shard);
        this.opts.onStatus(`following ${old} again`);
        return;
      } catch {
        await sleep(200, undefined, { signal: this.opts.signal }).catch(() => undefined);
      }
    }
    if (!this.stopped) this.opts.onStatus(`gave up on ${old}: no primary answered within ${FAILOVER_WAIT_MS / 1000} s`);
  }

  private async failedOver(shard: Shard, from: string, to: string): Promise<void> {
    const t = Date.now() - shard.offset;
    const held = shard.decoder.model.held().map((s) => s.lock);
    const present = held.length > 0 ? await keysPresent(shard.endpoint, held) : [];
    const detail = `failover from ${from} to ${to}`;
    const out: TraceEvent[] = [{ kind: 'failover', t, lock: '*', detail }];
    held.forEach((lock, i) => {
      if (!present[i]) out.push(...shard.decoder.lostInFailover(lock, t, `absent on ${to} after the failover from ${from}`));
    });
    this.emit(out);
    this.opts.onStatus(`failover: now following ${to}`);
    await this.attach(shard);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.ticker) clearInterval(this.ticker);
    for (const shard of this.shards) {
      if (shard.quiet) clearTimeout(shard.quiet);
      shard.monitor?.close();
      this.emit(shard.decoder.flush());
    }
  }
}
