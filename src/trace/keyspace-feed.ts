import { PermissionError, UsageError } from '../core/errors.js';
import type { TraceEvent } from '../core/trace/events.js';
import { traceTime } from '../core/trace/format.js';
import { KeyspaceDecoder, readingFor, type KeyReading } from '../core/trace/keyspace-decoder.js';
import type { LockModel } from '../core/trace/lock-model.js';
import { missingFlagsMessage, missingNotifyFlags, restoreNotifyCommand, withNotifyFlags } from '../core/trace/notify-flags.js';
import { keyReader, notifyConfig, serverClockOffset, setNotifyConfig, subscribeKeyspace, type KeyReader, type Notification } from '../redis/keyspace.js';
import type { MonitorEndpoint } from '../redis/monitor.js';
import { formatHostPort } from '../redis/target.js';
import type { FeedConnection, FeedHost, ShardFeed } from './feed.js';

// The keyspace-notification feed of one primary (`trace --source keyspace`): what the server
// publishes about each key, in its order, each write followed at once by a read of the key (its
// value or fields and PTTL) on a second connection. Notifications are decoded strictly in the
// order they came, each once its reading is back, so a slow read delays, never reorders.
//
// The server's config is checked, never changed, unless the user asked with
// --enable-notifications: then the missing flags are added and the previous value is put back
// at the end, only if nobody changed it meanwhile.

/**
 * Notifications waiting to be decoded beyond which new ones are not read back (their events lose
 * their owner): each read in flight holds memory, and a server busier than the reads can follow
 * must not grow the trace without bound.
 */
const MAX_BACKLOG = 10_000;

/**
 * How often the flags are read again: someone may turn them off under the trace (another trace
 * putting its old value back, an operator), and then no notification says so: the trace would
 * see nothing and call that safe. One CONFIG GET on the reading connection each time.
 */
const NOTIFY_CHECK_MS = 2000;

interface Queued {
  readonly n: Notification;
  readonly reading: Promise<KeyReading | undefined> | undefined;
}

interface ConfigChange {
  readonly endpoint: MonitorEndpoint;
  readonly previous: string;
  /** The value as the server reports it after our CONFIG SET. */
  readonly set: string;
}

export class KeyspaceFeed implements ShardFeed {
  readonly model: LockModel;
  private readonly decoder: KeyspaceDecoder;
  private reader: KeyReader | undefined;
  private offset = 0;
  private readonly queue: Queued[] = [];
  private pumping: Promise<void> | undefined;
  private readonly changes: ConfigChange[] = [];
  /** Set while reads are skipped because the backlog is full. */
  private behind = false;
  /** Local time of the last flags check sent; undefined while one is in flight. */
  private checkedAt: number | undefined = 0;
  /** Server time the flags were last seen complete: a blind period starts there. */
  private seenOnAt = 0;
  private blind = false;
  /** False once CONFIG GET was refused: the flags cannot be re-checked, and asking again only fills ACL LOG. */
  private flagsReadable = true;

  constructor(
    private readonly host: FeedHost,
    private readonly opts: {
      readonly wants: (lock: string) => boolean;
      readonly node?: string | undefined;
      readonly enableNotifications: boolean;
      /** Default MAX_BACKLOG. */
      readonly maxBacklog?: number | undefined;
    },
  ) {
    this.decoder = new KeyspaceDecoder({ wants: opts.wants, ...(opts.node ? { node: opts.node } : {}) });
    this.model = this.decoder.model;
  }

  async attach(endpoint: MonitorEndpoint): Promise<FeedConnection> {
    await this.ensureNotifications(endpoint);
    this.offset = await serverClockOffset(endpoint).catch(this.without('TIME', 'times are the local clock', 0));
    this.seenOnAt = this.serverNow();
    this.reader?.close();
    this.reader = await keyReader(endpoint);
    const reader = this.reader;
    const sub = await subscribeKeyspace(endpoint, (n) => this.receive(n, reader)).catch((err: unknown) => {
      reader.close();
      throw err instanceof PermissionError ? err.orInstead('use --source monitor, which needs +monitor') : err;
    });
    return sub;
  }

  /** A refusal of something the trace can do without: said once on the status line, `fallback` used. */
  private without<T>(what: string, consequence: string, fallback: T): (err: unknown) => T {
    return (err) => {
      if (!(err instanceof PermissionError)) throw err;
      this.host.status(`${err.message} (${what} is optional: ${consequence})`);
      return fallback;
    };
  }

  /** Exit 2 when the needed flags are off, unless the user asked trace to turn them on. */
  private async ensureNotifications(endpoint: MonitorEndpoint): Promise<void> {
    const node = formatHostPort(endpoint);
    const wanted = withNotifyFlags('');
    const previous = await notifyConfig(endpoint).catch((err: unknown) => {
      // Managed services rename CONFIG; an ACL without +config|get cannot read it: the flags are then the operator's.
      if (err instanceof PermissionError && this.opts.enableNotifications) {
        throw new PermissionError(`${err.message}; --enable-notifications cannot set notify-keyspace-events there: set it to include "${wanted}" through the provider's parameter settings (or CONFIG SET as an admin), then trace without it`, err.command, err.disabled);
      }
      return this.without('CONFIG GET', `cannot check notify-keyspace-events; it must include "${wanted}" or no events arrive`, undefined)(err);
    });
    if (previous === undefined) this.flagsReadable = false;
    if (previous === undefined || missingNotifyFlags(previous).length === 0) return;
    if (!this.opts.enableNotifications) throw new UsageError(missingFlagsMessage(node, previous));
    await setNotifyConfig(endpoint, withNotifyFlags(previous)).catch((err: unknown) => {
      throw err instanceof PermissionError ? err.orInstead(`have an operator set notify-keyspace-events to "${withNotifyFlags(previous)}", or use --source monitor`) : err;
    });
    const set = await notifyConfig(endpoint);
    this.changes.push({ endpoint, previous, set });
    // Said now, while the trace can: a trace that is killed never reaches its restore.
    this.host.status(`set notify-keyspace-events on ${node} to "${set}" (was "${previous}"); it is put back when the trace ends, or if the trace is killed, by: ${restoreCommand(endpoint, previous)}`);
  }

  private receive(n: Notification, reader: KeyReader): void {
    const kind = readingFor(n.event);
    const limit = this.opts.maxBacklog ?? MAX_BACKLOG;
    const full = this.queue.length >= limit;
    if (full !== this.behind) {
      this.behind = full;
      this.host.status(full ? `${limit} notifications behind: keys are not read back (owners unknown) until the trace catches up` : 'caught up: keys are read back again');
    }
    this.queue.push({ n, reading: kind && !full ? reader.read(n.key, kind) : undefined });
    this.kick();
  }

  private kick(): void {
    if (this.pumping) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.queue.length > 0) this.kick();
    });
  }

  /** Decodes the queue in arrival order, each notice once its reading is back. */
  private async pump(): Promise<void> {
    for (let item = this.queue.shift(); item; item = this.queue.shift()) {
      const reading = await item.reading;
      this.host.received(1, Date.now() - item.n.receivedAt);
      this.host.emit(this.decoder.push({ t: item.n.receivedAt - this.offset, key: item.n.key, event: item.n.event, reading }));
    }
  }

  flush(): void {}

  /** Each notification is complete in itself: nothing to wait for. */
  async settle(): Promise<void> {}

  /** Every NOTIFY_CHECK_MS: are the flags still on? (Never two checks at once.) */
  tick(): void {
    const reader = this.reader;
    if (!reader || !this.flagsReadable || this.checkedAt === undefined || Date.now() - this.checkedAt < NOTIFY_CHECK_MS) return;
    this.checkedAt = undefined;
    const at = this.serverNow();
    void reader.notifyFlags().then((flags) => {
      this.checkedAt = Date.now();
      if (flags !== undefined) this.flagsSeen(flags, at);
    });
  }

  /** Says when the trace went blind (from the last check that found the flags on) and when it sees again. */
  private flagsSeen(flags: string, at: number): void {
    const missing = missingNotifyFlags(flags);
    const node = this.opts.node ? { node: this.opts.node } : {};
    if (missing.length === 0) {
      this.seenOnAt = at;
      if (!this.blind) return;
      this.blind = false;
      this.host.status(`notify-keyspace-events is on again ("${flags}"): the trace sees again`);
      return this.host.emit([{ kind: 'unblind', t: at, lock: '*', ...node, detail: `notify-keyspace-events is "${flags}" again` }]);
    }
    if (this.blind) return;
    this.blind = true;
    const detail = `notify-keyspace-events was changed to "${flags}", without ${missing.join(' ')}: no notification arrives, nothing is seen`;
    this.host.status(`BLIND: ${detail} (since between ${traceTime(this.seenOnAt)} and ${traceTime(at)})`);
    this.host.emit([{ kind: 'blind', t: this.seenOnAt, lock: '*', ...node, detail }]);
  }

  serverNow(): number {
    return Date.now() - this.offset;
  }

  lostInFailover(lock: string, t: number, detail: string): TraceEvent[] {
    return this.decoder.lostInFailover(lock, t, detail);
  }

  async stop(): Promise<void> {
    await this.pumping;
    this.reader?.close();
    for (const change of this.changes.splice(0)) await this.restore(change);
  }

  /** Puts notify-keyspace-events back, unless someone changed it during the trace. */
  private async restore({ endpoint, previous, set }: ConfigChange): Promise<void> {
    const node = formatHostPort(endpoint);
    try {
      const now = await notifyConfig(endpoint);
      if (now !== set) return this.host.status(`left notify-keyspace-events on ${node} as "${now}": it was changed during the trace`);
      await setNotifyConfig(endpoint, previous);
      this.host.status(`put notify-keyspace-events on ${node} back to "${previous}"`);
    } catch (err) {
      this.host.status(`could not put notify-keyspace-events on ${node} back to "${previous}" (${(err as Error).message}): set it by hand: ${restoreCommand(endpoint, previous)}`);
    }
  }
}

const restoreCommand = (endpoint: MonitorEndpoint, previous: string): string =>
  restoreNotifyCommand({ host: endpoint.host, port: endpoint.port, tls: endpoint.tls, username: endpoint.username, hasPassword: endpoint.password !== undefined && endpoint.password !== '' }, previous);
