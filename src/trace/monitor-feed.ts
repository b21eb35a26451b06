import { TraceDecoder } from '../core/trace/decoder.js';
import type { TraceEvent } from '../core/trace/events.js';
import { parseMonitorLine } from '../core/trace/monitor-line.js';
import { openMonitor, type MonitorEndpoint } from '../redis/monitor.js';
import { clientNames } from '../redis/trace-nodes.js';
import type { FeedConnection, FeedHost, ShardFeed } from './feed.js';

// The MONITOR feed of one primary: lines decoded as they arrive; a script run still open is
// completed when the connection goes quiet for a moment, and expiries are computed from the
// leases and the server's timestamps, also on a clock when no line arrives.

/** How long a connection must be quiet before an open script run counts as complete. */
const QUIET_MS = 50;
const TICK_MARGIN_MS = 1000;

export class MonitorFeed implements ShardFeed {
  private decoder: TraceDecoder | undefined;
  private quietTimer: NodeJS.Timeout | undefined;
  /** Bumped on every batch received: a quiet check that sees it change knows data came in. */
  private batches = 0;
  /** Local time minus server time at the newest line (for the clock between lines). */
  private offset = 0;
  private minGap = Number.POSITIVE_INFINITY;

  constructor(
    private readonly host: FeedHost,
    private readonly opts: { readonly wants: (lock: string) => boolean; readonly node?: string | undefined },
  ) {}

  get model() {
    return this.live().model;
  }

  async attach(endpoint: MonitorEndpoint): Promise<FeedConnection> {
    // Names of the connections made before the trace, so their first events are named too.
    if (!this.decoder) this.decoder = new TraceDecoder({ wants: this.opts.wants, clientNames: await clientNames(endpoint), ...(this.opts.node ? { node: this.opts.node } : {}) });
    return openMonitor(endpoint, (lines) => this.receive(lines));
  }

  private live(): TraceDecoder {
    if (!this.decoder) throw new Error('the MONITOR feed is not attached');
    return this.decoder;
  }

  private receive(raw: readonly string[]): void {
    const decoder = this.live();
    const now = Date.now();
    const out: TraceEvent[] = [];
    let newest: number | undefined;
    let lines = 0;
    for (const text of raw) {
      const line = parseMonitorLine(text);
      if (!line) continue;
      lines++;
      newest = line.t;
      out.push(...decoder.push(line));
    }
    if (newest !== undefined) {
      const gap = now - newest;
      this.minGap = Math.min(this.minGap, gap);
      this.offset = gap;
      this.host.received(lines, gap - this.minGap);
    }
    this.batches++;
    if (this.quietTimer) clearTimeout(this.quietTimer);
    // Behind the server, a pause means the server is busy, not that a script ended: it writes a
    // monitor at most 64 KB per turn of its loop, so a run's lines can straddle a long pause. Closing
    // the run early there made a release whose DEL came later look refused (a 60 s bench at load 16:
    // one false expired-while-held), so the wait grows with the lag, without a cap.
    this.quietTimer = setTimeout(() => this.quiet(), QUIET_MS + 2 * this.host.lagMs);
    this.host.emit(out);
  }

  /**
   * A script run still open when the connection went quiet is complete: Redis writes a script's
   * lines together. A timer can fire before a starved process has read data already waiting on
   * the socket (timers run before I/O in each turn of the event loop), so the run is closed only
   * after one more turn in which nothing was read.
   */
  private quiet(): void {
    const seen = this.batches;
    setImmediate(() => {
      if (this.batches === seen) this.flush();
    });
  }

  flush(): void {
    if (this.decoder) this.host.emit(this.decoder.flush());
  }

  /**
   * Expiries while the stream is quiet. The server clock is estimated from the newest line, held
   * back by a margin: a renewal still in flight must never be beaten by an expiry it prevented.
   */
  tick(): void {
    if (!this.decoder || this.decoder.serverTime === 0) return;
    const margin = Math.max(TICK_MARGIN_MS, 2 * this.host.lagMs);
    this.host.emit(this.decoder.tick(this.serverNow() - margin));
  }

  serverNow(): number {
    return Date.now() - this.offset;
  }

  lostInFailover(lock: string, t: number, detail: string): TraceEvent[] {
    return this.live().lostInFailover(lock, t, detail);
  }

  async stop(): Promise<void> {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.flush();
  }
}
