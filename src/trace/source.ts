import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../core/errors.js';
import type { TraceEvent } from '../core/trace/events.js';
import type { MonitorEndpoint } from '../redis/monitor.js';
import { keysPresent, sentinelMaster, tracePlan, type TracePlan } from '../redis/trace-nodes.js';
import { formatHostPort, type TargetSpec } from '../redis/target.js';
import type { FeedConnection, FeedHost, ShardFeed, TraceSourceKind } from './feed.js';
import { KeyspaceFeed } from './keyspace-feed.js';
import { MonitorFeed } from './monitor-feed.js';

// The live source of `trace`: one feed per primary (every Cluster primary; Sentinel's master,
// followed across a failover), MONITOR by default or keyspace notifications. The feed decodes;
// this keeps them connected, counts what arrives, and checks the locks after a failover.

export interface TraceSourceOptions {
  readonly spec: TargetSpec;
  readonly wants: (lock: string) => boolean;
  readonly onEvents: (events: readonly TraceEvent[]) => void;
  /** Status lines for stderr / the view: "following 3 primaries", "failover: ...". */
  readonly onStatus: (text: string) => void;
  readonly signal?: AbortSignal | undefined;
  /** Default `monitor`. */
  readonly source?: TraceSourceKind | undefined;
  /** Keyspace only: set the notify-keyspace-events flags the trace needs, and put them back at the end. */
  readonly enableNotifications?: boolean | undefined;
  /** Keyspace only: notifications waiting beyond which keys are not read back (default 10,000). */
  readonly keyspaceBacklog?: number | undefined;
}

export interface SourceStats {
  readonly source: TraceSourceKind;
  /** MONITOR lines or keyspace notifications received. */
  readonly lines: number;
  /**
   * MONITOR: receive time minus the server's timestamp of the newest line, less the smallest such
   * gap seen (clock offset); keyspace: how long the newest notification waited to be decoded.
   */
  readonly lagMs: number;
  readonly maxLagMs: number;
  /**
   * MONITOR: the server time up to which every primary's stream is known complete (each one's
   * newest fence; 0 until each has one); undefined for keyspace notifications.
   */
  readonly completeUntil: number | undefined;
}

const TICK_MS = 100;
const FAILOVER_WAIT_MS = 30_000;

interface Shard {
  readonly feed: ShardFeed;
  endpoint: MonitorEndpoint;
  connection: FeedConnection | undefined;
}

export class TraceSource {
  private readonly shards: Shard[] = [];
  private plan: TracePlan | undefined;
  private lines = 0;
  private lag = 0;
  private maxLag = 0;
  private ticker: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly kind: TraceSourceKind;
  private readonly host: FeedHost;

  constructor(private readonly opts: TraceSourceOptions) {
    this.kind = opts.source ?? 'monitor';
    const source = this;
    this.host = {
      emit: (events) => this.emit(events),
      received: (count, lagMs) => {
        this.lines += count;
        this.lag = lagMs;
        this.maxLag = Math.max(this.maxLag, lagMs);
      },
      get lagMs() {
        return source.lag;
      },
      status: (text) => opts.onStatus(text),
    };
  }

  get stats(): SourceStats {
    const fenced = this.shards.map((s) => s.feed.completeUntil);
    const complete = fenced.length > 0 && fenced.every((t) => t !== undefined);
    return { source: this.kind, lines: this.lines, lagMs: this.lag, maxLagMs: this.maxLag, completeUntil: complete ? Math.min(...(fenced as number[])) : undefined };
  }

  /** Connects to every primary and starts decoding; resolves once every feed is running. */
  async start(): Promise<string> {
    this.plan = await tracePlan(this.opts.spec);
    const multi = this.plan.primaries.length > 1;
    for (const endpoint of this.plan.primaries) {
      const node = multi ? formatHostPort(endpoint) : undefined;
      const feed =
        this.kind === 'keyspace'
          ? new KeyspaceFeed(this.host, { wants: this.opts.wants, node, enableNotifications: this.opts.enableNotifications === true, maxBacklog: this.opts.keyspaceBacklog })
          : new MonitorFeed(this.host, { wants: this.opts.wants, node });
      const shard: Shard = { feed, endpoint, connection: undefined };
      this.shards.push(shard);
      await this.attach(shard);
    }
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    const what = this.plan.primaries.map(formatHostPort).join(', ');
    const whose = this.plan.topology === 'cluster' ? `${this.plan.primaries.length} Cluster primaries` : this.plan.topology === 'sentinel' ? 'the Sentinel master' : 'the server';
    return `${whose} (${what})${this.kind === 'keyspace' ? ' through keyspace notifications' : ''}`;
  }

  private async attach(shard: Shard): Promise<void> {
    const connection = await shard.feed.attach(shard.endpoint);
    shard.connection = connection;
    void connection.ended.then((err) => {
      if (err && !this.stopped) void this.recover(shard, err);
    });
  }

  private tick(): void {
    for (const shard of this.shards) shard.feed.tick();
  }

  private emit(events: readonly TraceEvent[]): void {
    if (events.length > 0) this.opts.onEvents(events);
  }

  /**
   * The connection broke. Under Sentinel the master may have changed: wait for the sentinels to
   * name one, and if it is another node, check that every lock held on the old one exists there
   * (read-only EXISTS): the ones that do not were lost in the failover.
   */
  private async recover(shard: Shard, err: Error): Promise<void> {
    const old = formatHostPort(shard.endpoint);
    shard.feed.flush();
    this.opts.onStatus(`lost the connection to ${old} (${err.message}); reconnecting`);
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
      } catch (failure) {
        // Notifications turned off on the node we came back to: waiting will not turn them on.
        if (failure instanceof UsageError) return this.opts.onStatus(`stopped following ${old}: ${failure.message}`);
        await sleep(200, undefined, { signal: this.opts.signal }).catch(() => undefined);
      }
    }
    if (!this.stopped) this.opts.onStatus(`gave up on ${old}: no primary answered within ${FAILOVER_WAIT_MS / 1000} s`);
  }

  private async failedOver(shard: Shard, from: string, to: string): Promise<void> {
    const t = shard.feed.serverNow();
    const held = shard.feed.model.held().map((s) => s.lock);
    const present = held.length > 0 ? await keysPresent(shard.endpoint, held) : [];
    const out: TraceEvent[] = [{ kind: 'failover', t, lock: '*', detail: `failover from ${from} to ${to}` }];
    held.forEach((lock, i) => {
      if (!present[i]) out.push(...shard.feed.lostInFailover(lock, t, `absent on ${to} after the failover from ${from}`));
    });
    // Out before the new node's first event; the status only once its stream is really followed.
    this.emit(out);
    await this.attach(shard);
    this.opts.onStatus(`failover: now following ${to}`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.ticker) clearInterval(this.ticker);
    await Promise.all(this.shards.map((shard) => shard.feed.settle()));
    for (const shard of this.shards) shard.connection?.close();
    for (const shard of this.shards) await shard.feed.stop();
  }
}
