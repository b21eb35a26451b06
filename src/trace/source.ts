import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../core/errors.js';
import type { TraceEvent } from '../core/trace/events.js';
import type { MonitorEndpoint } from '../redis/monitor.js';
import { clusterView, keysPresent, primaryOfSlot, sentinelMaster, slotOf, tracePlan, type TracePlan } from '../redis/trace-nodes.js';
import { formatHostPort, type TargetSpec } from '../redis/target.js';
import type { FeedConnection, FeedHost, ShardFeed, TraceSourceKind } from './feed.js';
import { KeyspaceFeed } from './keyspace-feed.js';
import { MonitorFeed } from './monitor-feed.js';

// The live source of `trace`: one feed per primary (every Cluster primary; Sentinel's master,
// followed across a failover), MONITOR by default or keyspace notifications. The feed decodes;
// this keeps them connected, counts what arrives, and checks the locks after a failover. In a
// Cluster a primary is known by a slot it serves: whoever serves that slot now is followed, both
// when the old primary died (its connection breaks) and when a replica took over while the old
// one lives on as a replica (its connection stays up and shows nothing more: checked every 2 s).
// A primary it loses and cannot replace is said as a blind period, never passed over. Redlock's
// independent primaries (`--nodes`) are each followed as they are: a node that drops the
// connection is blind until it is back, and then each lock the trace believed held there is
// checked (EXISTS): one gone restarted without its data, and its holder's vote with it.

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
  /** Redlock's independent primaries, followed instead of the target's own (each its own endpoint). */
  readonly redlockNodes?: readonly TargetSpec[] | undefined;
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
  /** Connections lost and recovered (or followed to a new primary) since the start. */
  readonly reconnects: number;
  /** A lost connection is being recovered now: what happens on that primary is not seen meanwhile. */
  readonly recovering: boolean;
}

const WHOSE: Readonly<Record<TracePlan['topology'], (n: number) => string>> = {
  cluster: (n) => `${n} Cluster primaries`,
  sentinel: () => 'the Sentinel master',
  standalone: () => 'the server',
  redlock: (n) => `${n} Redlock nodes`,
};

const TICK_MS = 100;
/** Between attempts to reach a lost primary: soon at first (a restart takes a moment), then every 100 ms. */
const RETRY_FIRST_MS = 25;
const RETRY_MS = 100;
const FAILOVER_WAIT_MS = 30_000;
/** How often a Cluster trace asks who serves each followed primary's slots (one CLUSTER NODES). */
const CLUSTER_CHECK_MS = 2000;

interface Shard {
  readonly feed: ShardFeed;
  endpoint: MonitorEndpoint;
  connection: FeedConnection | undefined;
  /** Cluster: a slot this primary served when the trace began; whoever serves it is followed. */
  slot: number | undefined;
  /** A reconnect or a switch to another primary is under way: checks leave the shard alone. */
  moving: boolean;
}

export class TraceSource {
  private readonly shards: Shard[] = [];
  private plan: TracePlan | undefined;
  private lines = 0;
  private lag = 0;
  private maxLag = 0;
  private ticker: NodeJS.Timeout | undefined;
  private stopped = false;
  private clusterCheckedAt = 0;
  private clusterChecking = false;
  private reconnects = 0;
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
    return {
      source: this.kind,
      lines: this.lines,
      lagMs: this.lag,
      maxLagMs: this.maxLag,
      completeUntil: complete ? Math.min(...(fenced as number[])) : undefined,
      reconnects: this.reconnects,
      recovering: this.shards.some((s) => s.moving),
    };
  }

  /** Connects to every primary and starts decoding; resolves once every feed is running. */
  async start(): Promise<string> {
    this.plan = await tracePlan(this.opts.spec, this.opts.redlockNodes);
    const multi = this.plan.primaries.length > 1 || this.plan.topology === 'redlock';
    const view = this.plan.topology === 'cluster' ? await clusterView(this.plan.primaries) : [];
    for (const endpoint of this.plan.primaries) {
      // Events name the primary the shard follows now, which a failover changes: labelled here, not in the feed.
      let shard: Shard | undefined;
      const host = this.hostFor(() => (multi && shard ? formatHostPort(shard.endpoint) : undefined));
      const feed =
        this.kind === 'keyspace'
          ? new KeyspaceFeed(host, { wants: this.opts.wants, enableNotifications: this.opts.enableNotifications === true, maxBacklog: this.opts.keyspaceBacklog })
          : new MonitorFeed(host, { wants: this.opts.wants });
      shard = { feed, endpoint, connection: undefined, slot: slotOf(view, endpoint), moving: false };
      this.shards.push(shard);
      await this.attach(shard);
    }
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    const what = this.plan.primaries.map(formatHostPort).join(', ');
    const whose = WHOSE[this.plan.topology](this.plan.primaries.length);
    return `${whose} (${what})${this.kind === 'keyspace' ? ' through keyspace notifications' : ''}`;
  }

  /** The host one shard's feed reports to: its events get the shard's node as it is when they are emitted. */
  private hostFor(node: () => string | undefined): FeedHost {
    const source = this.host;
    return {
      emit: (events) => {
        const label = node();
        if (label !== undefined) for (const e of events) (e as { node?: string }).node = label;
        source.emit(events);
      },
      received: (count, lagMs) => source.received(count, lagMs),
      get lagMs() {
        return source.lagMs;
      },
      status: (text) => source.status(text),
    };
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
    if (this.plan?.topology !== 'cluster' || this.clusterChecking || Date.now() - this.clusterCheckedAt < CLUSTER_CHECK_MS) return;
    this.clusterChecking = true;
    void this.checkCluster().finally(() => {
      this.clusterChecking = false;
      this.clusterCheckedAt = Date.now();
    });
  }

  /** Nodes to ask about the Cluster: the ones followed now, then the ones the trace began with. */
  private clusterSeeds(): MonitorEndpoint[] {
    return [...this.shards.map((s) => s.endpoint), ...(this.plan?.primaries ?? [])];
  }

  /** The primary now serving the shard's slot, when the Cluster names one (undefined: none yet, or not a Cluster). */
  private async servingNow(shard: Shard, seeds: readonly MonitorEndpoint[]): Promise<MonitorEndpoint | undefined> {
    if (shard.slot === undefined) return undefined;
    const now = primaryOfSlot(await clusterView(seeds), shard.slot);
    return now ? { ...shard.endpoint, host: now.host, port: now.port } : undefined;
  }

  /** A replica that took over while its old primary lives on (CLUSTER FAILOVER): no connection broke. */
  private async checkCluster(): Promise<void> {
    const seeds = this.clusterSeeds();
    for (const shard of this.shards) {
      if (shard.moving || this.stopped) continue;
      const now = await this.servingNow(shard, seeds).catch(() => undefined);
      if (!now || shard.moving || formatHostPort(now) === formatHostPort(shard.endpoint)) continue;
      shard.moving = true;
      this.reconnects++;
      const old = formatHostPort(shard.endpoint);
      shard.connection?.close();
      shard.feed.flush();
      shard.endpoint = now;
      await this.failedOver(shard, old, formatHostPort(now))
        .catch((err: Error) => this.lost(shard, old, err.message))
        .finally(() => (shard.moving = false));
    }
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
    if (shard.moving) return;
    shard.moving = true;
    this.reconnects++;
    try {
      await this.reconnect(shard, err);
    } finally {
      shard.moving = false;
    }
  }

  private async reconnect(shard: Shard, err: Error): Promise<void> {
    const old = formatHostPort(shard.endpoint);
    shard.feed.flush();
    this.opts.onStatus(`lost the connection to ${old} (${err.message}); reconnecting`);
    const redlock = this.plan?.topology === 'redlock';
    // A Redlock node has no replica to take over: until it is back, nothing of it is seen.
    if (redlock) this.emit([{ kind: 'blind', t: shard.feed.serverNow(), lock: '*', node: old, detail: `lost the connection to ${old} (${err.message}): what happens there is not seen until it is back` }]);
    const deadline = Date.now() + FAILOVER_WAIT_MS;
    for (let pause = RETRY_FIRST_MS; !this.stopped && Date.now() < deadline; pause = Math.min(RETRY_MS, pause * 2)) {
      try {
        const now = await this.primaryNow(shard);
        if (now && formatHostPort(now) !== old) {
          shard.endpoint = now;
          await this.failedOver(shard, old, formatHostPort(now));
          return;
        }
        // Before MONITOR is attached again: a write seen later is decoded against what the node has now.
        const forgotten = redlock ? await this.forgotten(shard, old) : [];
        await this.attach(shard);
        if (redlock) this.emit([...forgotten, { kind: 'unblind', t: shard.feed.serverNow(), lock: '*', node: old, detail: `${old} is back` }]);
        this.opts.onStatus(`following ${old} again`);
        return;
      } catch (failure) {
        // Notifications turned off on the node we came back to: waiting will not turn them on.
        if (failure instanceof UsageError) return this.lost(shard, old, failure.message);
        await sleep(pause, undefined, { signal: this.opts.signal }).catch(() => undefined);
      }
    }
    if (!this.stopped) this.lost(shard, old, `no primary answered within ${FAILOVER_WAIT_MS / 1000} s`);
  }

  /** Who is the shard's primary now: Sentinel's master, or whoever serves the Cluster slot (undefined: the same node, as far as is known). */
  private async primaryNow(shard: Shard): Promise<MonitorEndpoint | undefined> {
    if (this.plan?.topology === 'sentinel') {
      const master = await sentinelMaster(this.opts.spec);
      return { ...shard.endpoint, host: master.host, port: master.port };
    }
    if (this.plan?.topology !== 'cluster') return undefined;
    // The broken node last: it may be gone for good.
    const seeds = this.clusterSeeds().filter((s) => formatHostPort(s) !== formatHostPort(shard.endpoint));
    return this.servingNow(shard, [...seeds, shard.endpoint]);
  }

  /**
   * A Redlock node that came back: the locks the trace believed held there and that are gone
   * (read-only EXISTS) were forgotten by a restart without persistence, as expiries at its return.
   */
  private async forgotten(shard: Shard, node: string): Promise<TraceEvent[]> {
    const held = shard.feed.model.held();
    if (held.length === 0) return [];
    const present = await keysPresent(shard.endpoint, held.map((s) => s.lock));
    const t = shard.feed.serverNow();
    const detail = `absent on ${node} when it was back: it restarted without its data`;
    const out = held.filter((_, i) => !present[i]).flatMap((s) => shard.feed.model.expire(s, t, detail));
    for (const e of out) (e as { node?: string }).node = node;
    return out;
  }

  /** Stops following a primary it cannot replace, and says so as a blind period: nothing seen there is not safe. */
  private lost(shard: Shard, old: string, why: string): void {
    this.opts.onStatus(`stopped following ${old}: ${why}`);
    this.emit([{ kind: 'blind', t: shard.feed.serverNow(), lock: '*', node: old, detail: `lost ${old} (${why}): what happens there is not seen` }]);
  }

  private async failedOver(shard: Shard, from: string, to: string): Promise<void> {
    const t = shard.feed.serverNow();
    const held = shard.feed.model.held().map((s) => s.lock);
    const present = held.length > 0 ? await keysPresent(shard.endpoint, held) : [];
    const out: TraceEvent[] = [{ kind: 'failover', t, lock: '*', detail: `failover from ${from} to ${to}` }];
    held.forEach((lock, i) => {
      if (!present[i]) out.push(...shard.feed.lostInFailover(lock, t, `absent on ${to} after the failover from ${from}`));
    });
    // Named after the primary they happened on, when there are several: what it held was on the old one.
    if (this.shards.length > 1) for (const e of out) (e as { node?: string }).node = from;
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
