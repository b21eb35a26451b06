import { ClockStepWatch, clockStepEvent } from '../core/trace/clock-steps.js';
import { PermissionError } from '../core/errors.js';
import { TraceDecoder } from '../core/trace/decoder.js';
import type { TraceEvent } from '../core/trace/events.js';
import { fenceCommand, fenceNumber } from '../core/trace/fence.js';
import { parseMonitorLine } from '../core/trace/monitor-line.js';
import { openMonitor, type MonitorConnection, type MonitorEndpoint, type MonitorHandlers } from '../redis/monitor.js';
import { clientNames, serverCommands } from '../redis/trace-nodes.js';
import type { ServerCommands } from '../core/trace/server-commands.js';
import type { FeedConnection, FeedHost, ShardFeed } from './feed.js';

// The MONITOR feed of one primary: lines decoded as they arrive. When the stream goes quiet, or a
// lease may have run out, it sends a fence (core/trace/fence.ts) on the monitoring connection
// itself: when the fence's line comes back, a script run still open is complete and every expiry
// up to the fence's server time is certain. Nothing is decided on a local timer: Redis writes a
// monitor at most 64 KB per turn of its loop, so one script's lines can straddle any pause of a
// busy machine (closing a run at such a pause once read a compare-and-delete whose DEL came after
// it as a refused release: a false expired-while-held in safe traffic, bench at load 16).

/** How long the stream must be quiet before a fence is sent to complete what it has. */
const QUIET_MS = 50;
/** A fence unanswered this long: expiries fall back to the local clock estimate. */
const FENCE_PATIENCE_MS = 1000;
// On a stream that is never quiet, a fence at least this often: its time bounds the clocks' offset (clock-steps.ts).
const ANCHOR_EVERY_MS = 1000;
const TICK_MARGIN_MS = 1000;
/** At the end, how long to wait for a fence before a script run still open is taken as it is. */
const SETTLE_MS = 1000;

/** How the feed reaches a node: the real MONITOR connection, or a test's stand-in. */
export interface MonitorLink {
  /** Address -> CLIENT SETNAME of the connections already there. */
  names(endpoint: MonitorEndpoint): Promise<Map<string, string>>;
  /** The conditional writes the node has (SET IFEQ, DELIFEQ, DELEX); a stand-in may not know. */
  commands?(endpoint: MonitorEndpoint): Promise<ServerCommands | undefined>;
  open(endpoint: MonitorEndpoint, handlers: MonitorHandlers): Promise<MonitorConnection>;
}

const REDIS_LINK: MonitorLink = { names: clientNames, commands: serverCommands, open: openMonitor };

/** The other source, named when MONITOR is refused. */
const KEYSPACE_NEEDS = 'use --source keyspace, which needs +psubscribe and +@read instead';

export class MonitorFeed implements ShardFeed {
  private decoder: TraceDecoder | undefined;
  private connection: MonitorConnection | undefined;
  private quietTimer: NodeJS.Timeout | undefined;
  /** Local time minus server time at the newest line (for the clock between lines). */
  private offset = 0;
  private minGap = Number.POSITIVE_INFINITY;
  private readonly steps = new ClockStepWatch();
  private lastFenceAt = 0;
  private fences = 0;
  /** The fence sent and not seen yet, with the local time it was sent. */
  private awaited: { readonly n: number; readonly sentAt: number } | undefined;
  /** Lines came after the newest fence seen: a run may be open, a fence would complete it. */
  private unfenced = false;
  /** False once the node refused a fence (ACL, an older server): the conservative fallback only. */
  private fencing = true;
  /** Server time of the newest fence seen on this connection: the stream is complete up to it. */
  private fencedAt = 0;
  /** settle() waiting for the fence it sent (or for the node to refuse it). */
  private fenceSeen: (() => void) | undefined;
  private readonly link: MonitorLink;

  constructor(
    private readonly host: FeedHost,
    private readonly opts: { readonly wants: (lock: string) => boolean; readonly node?: string | undefined; readonly link?: MonitorLink },
  ) {
    this.link = opts.link ?? REDIS_LINK;
  }

  get model() {
    return this.live().model;
  }

  /** Server time up to which this feed has seen every line, through a fence (0: none yet). */
  get completeUntil(): number {
    return this.fencedAt;
  }

  async attach(endpoint: MonitorEndpoint): Promise<FeedConnection> {
    // Names of the connections made before the trace, so their first events are named too.
    // And what the server understands of the conditional writes: MONITOR lists rejected commands too.
    if (!this.decoder) {
      const [names, commands] = await Promise.all([this.namesBefore(endpoint), this.link.commands?.(endpoint)]);
      this.decoder = new TraceDecoder({ wants: this.opts.wants, clientNames: names, commands, ...(this.opts.node ? { node: this.opts.node } : {}) });
    }
    // A new connection (reconnected, or the promoted primary): fences sent on the old one are gone.
    this.awaited = undefined;
    this.fencing = true;
    try {
      this.connection = await this.link.open(endpoint, { onLines: (lines) => this.receive(lines), onRefused: (message) => this.refused(message) });
      // A first fence at once: it bounds the node's clock before any traffic, so a step is seen even in the first burst (clock-steps.ts).
      this.fence();
    } catch (err) {
      throw err instanceof PermissionError ? err.orInstead(KEYSPACE_NEEDS) : err;
    }
    return this.connection;
  }

  /** CLIENT LIST's names, or none where the user may not run it: the trace then names clients by address. */
  private async namesBefore(endpoint: MonitorEndpoint): Promise<Map<string, string>> {
    try {
      return await this.link.names(endpoint);
    } catch (err) {
      if (!(err instanceof PermissionError)) throw err;
      this.host.status(`${err.message} (only needed for client names: the trace goes on without them, naming clients by address)`);
      return new Map();
    }
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
      newest = line.t;
      // Before the line's own events: the expiries it completes ran out in the step.
      const step = this.steps.see(now, line.t);
      if (step !== undefined) out.push(clockStepEvent(line.t, step));
      const fence = fenceNumber(line);
      if (fence === undefined) {
        lines++;
        this.unfenced = true;
      } else if (fence === this.awaited?.n) {
        // Every line before it has arrived: the decoder completes the open run and the expiries.
        this.steps.fence(this.awaited.sentAt, line.t);
        this.awaited = undefined;
        this.unfenced = false;
        this.fencedAt = line.t;
      }
      out.push(...decoder.push(line));
    }
    if (newest !== undefined) {
      const gap = now - newest;
      this.minGap = Math.min(this.minGap, gap);
      this.offset = gap;
      this.host.received(lines, gap - this.minGap);
    }
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.quiet(), QUIET_MS);
    this.host.emit(out);
    if (!this.awaited) this.wake();
    if (now - this.lastFenceAt >= ANCHOR_EVERY_MS) this.fence();
  }

  private wake(): void {
    const waiting = this.fenceSeen;
    this.fenceSeen = undefined;
    waiting?.();
  }

  /** The stream went quiet: a fence completes a script run that may still be open. */
  private quiet(): void {
    if (this.unfenced) this.fence();
  }

  /** Sends a fence unless one is on its way (one at a time: the newest answers for all). */
  private fence(): void {
    if (!this.fencing || this.awaited || !this.connection) return;
    const n = ++this.fences;
    this.awaited = { n, sentAt: Date.now() };
    this.lastFenceAt = this.awaited.sentAt;
    this.connection.send(fenceCommand(n));
  }

  private refused(message: string): void {
    if (!this.fencing) return;
    this.fencing = false;
    this.awaited = undefined;
    this.wake();
    this.host.status(`the server refused the trace's ECHO fence (${message}): a script run completes at the next command, expiries show at least 1 s late`);
  }

  /** Only when the stream ends or breaks: no line can come after, so a run still open is complete. */
  flush(): void {
    if (this.decoder) this.host.emit(this.decoder.flush());
  }

  /**
   * Expiries while the stream is quiet. A lease that may have run out asks for a fence: its line
   * brings the server's time and the decoder emits what expired by then. Without a fence answer,
   * the server clock is estimated from the newest line, held back by a margin: a renewal still in
   * flight must never be beaten by an expiry it prevented.
   */
  tick(): void {
    if (!this.decoder || this.decoder.serverTime === 0) return;
    if (this.decoder.model.nextExpiryAt <= this.serverNow()) this.fence();
    if (this.fencing && (!this.awaited || Date.now() - this.awaited.sentAt < FENCE_PATIENCE_MS)) return;
    const margin = Math.max(TICK_MARGIN_MS, 2 * this.host.lagMs);
    this.host.emit(this.decoder.tick(this.serverNow() - margin));
  }

  serverNow(): number {
    return Date.now() - this.offset;
  }

  lostInFailover(lock: string, t: number, detail: string): TraceEvent[] {
    return this.live().lostInFailover(lock, t, detail);
  }

  /**
   * Before the end: a stream stopped mid-script would leave a run cut short, read as a refusal.
   * Fences until everything that arrived is complete, for at most SETTLE_MS (far behind, the
   * fence waits for the whole backlog: then the run is taken as it is, as without fences).
   */
  async settle(): Promise<void> {
    const deadline = Date.now() + SETTLE_MS;
    while (this.unfenced && this.fencing && this.connection && Date.now() < deadline) {
      this.fence();
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.fenceSeen = resolve;
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.flush();
  }
}
