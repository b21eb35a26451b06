import { setTimeout as sleep } from 'node:timers/promises';
import { PermissionError } from '../core/errors.js';
import type { LockView } from '../core/lock-view.js';
import type { TraceEvent } from '../core/trace/events.js';
import { globMatcher } from '../core/trace/pattern.js';
import { parseClientList, type ServerConnection } from '../core/who/connections.js';
import type { RememberedWriter, WhoFacts, WhoReport } from '../core/who/model.js';
import { everyoneResolved, resolveWho } from '../core/who/resolve.js';
import { collectLocks } from '../inspect/scan-locks.js';
import { inspectKeys } from '../inspect/snapshot.js';
import { connect, type Connection, type RedisClient } from '../redis/connection.js';
import { aclUserOf } from '../redis/permissions.js';
import type { TargetSpec } from '../redis/target.js';
import { TraceSource } from './source.js';

// `who`'s run: read the locks, sample MONITOR for a bounded time (the trace's own source and
// decoder) until every holder and queued waiter is tied to a connection, then read the locks,
// CLIENT LIST and PUBSUB CHANNELS again and resolve. Read-only: MONITOR, CLIENT LIST, PUBSUB and
// the snapshot reads inspect makes. Whatever the user may not run is said as a limit, not an error.

export type WhoTarget = { readonly keys: readonly string[] } | { readonly pattern: string };

export interface WhoOptions {
  readonly spec: TargetSpec;
  readonly target: WhoTarget;
  /** The longest the MONITOR sample runs. */
  readonly sampleMs: number;
  /** Sample the whole period even when everyone is resolved (pollers that retry rarely). */
  readonly full?: boolean | undefined;
  /** The owner directory earlier traces left (already filtered to nothing else but entries). */
  readonly remembered: readonly RememberedWriter[];
  readonly signal?: AbortSignal | undefined;
  /** Progress for stderr: "sampling MONITOR for up to 10 s". */
  readonly onStatus?: ((text: string) => void) | undefined;
}

/** The sample never ends before this: pollers that retry a few times a second are seen. */
const MIN_SAMPLE_MS = 1000;
const CHECK_EVERY_MS = 200;
/** At most this many locks of a pattern are resolved. */
export const WHO_LOCK_LIMIT = 1000;
/** Our own connections: never a party. */
const OWN_NAMES: ReadonlySet<string> = new Set(['redlock-cli:who', 'redlock-cli:trace']);

async function readViews(conn: Connection, target: WhoTarget): Promise<LockView[]> {
  if ('keys' in target) return inspectKeys(conn, target.keys);
  return [...(await collectLocks(conn, { pattern: target.pattern, limit: WHO_LOCK_LIMIT })).views];
}

/** The primaries whose connections and channels count (every Cluster primary). */
function primaries(conn: Connection): RedisClient[] {
  return conn.topology === 'cluster' ? (conn.client as Extract<RedisClient, { nodes: unknown }>).nodes('master') : [conn.client];
}

/** A read every primary answers, concatenated; undefined (and a limit said) when the user may not run it. */
async function readAll<T>(conn: Connection, read: (c: RedisClient) => Promise<T[]>, limits: string[], what: string): Promise<T[] | undefined> {
  try {
    return (await Promise.all(primaries(conn).map(read))).flat();
  } catch (err) {
    if (!(err instanceof PermissionError)) throw err;
    limits.push(`${err.message}: ${what}`);
    return undefined;
  }
}

const clientList = async (c: RedisClient): Promise<ServerConnection[]> => parseClientList(String(await c.call('CLIENT', 'LIST')));
const channelList = async (c: RedisClient): Promise<string[]> => ((await c.call('PUBSUB', 'CHANNELS')) as unknown[]).map(String);

interface Sample {
  readonly events: TraceEvent[];
  readonly ms: number;
  readonly endedEarly: boolean;
}

/** MONITOR on every primary, for the locks wanted, until everyone is resolved (after MIN_SAMPLE_MS) or sampleMs. */
async function sample(opts: WhoOptions, views: readonly LockView[], limits: string[], user: string): Promise<Sample> {
  const events: TraceEvent[] = [];
  const names = new Set(views.map((v) => v.key));
  const wants = 'keys' in opts.target ? (lock: string) => names.has(lock) : globMatcher(opts.target.pattern);
  const source = new TraceSource({ spec: opts.spec, wants, signal: opts.signal, onStatus: (text) => opts.onStatus?.(text), onEvents: (e) => events.push(...e) });
  const started = Date.now();
  try {
    await source.start();
  } catch (err) {
    if (!(err instanceof PermissionError)) throw err;
    await source.stop();
    limits.push(
      `the Redis user ${user} may not run MONITOR: grant it with ACL SETUSER ${user} +monitor (without it, holders and waiters are resolved only from the owner directory and the libraries' labels, and renewers are not seen)`,
    );
    return { events, ms: 0, endedEarly: false };
  }
  opts.onStatus?.(`sampling MONITOR for up to ${Math.round(opts.sampleMs / 1000)} s`);
  let endedEarly = false;
  try {
    while (Date.now() - started < opts.sampleMs && !opts.signal?.aborted) {
      await sleep(CHECK_EVERY_MS, undefined, { signal: opts.signal }).catch(() => undefined);
      const elapsed = Date.now() - started;
      const facts: WhoFacts = { views, events, connections: undefined, remembered: [] };
      if (!opts.full && elapsed >= MIN_SAMPLE_MS && elapsed < opts.sampleMs && everyoneResolved(facts)) {
        endedEarly = true;
        break;
      }
    }
  } finally {
    await source.stop();
  }
  return { events, ms: Date.now() - started, endedEarly };
}

/** Runs `who` to its report. */
export async function runWho(opts: WhoOptions): Promise<WhoReport> {
  const conn = await connect(opts.spec, { mode: 'one-shot', name: 'redlock-cli:who' });
  try {
    const limits: string[] = [];
    const before = await readViews(conn, opts.target);
    const taken = before.filter((v) => v.kind !== 'missing' && v.kind !== 'not-a-lock');
    const sampled = taken.length > 0 && opts.sampleMs > 0;
    const { events, ms, endedEarly } = sampled ? await sample(opts, before, limits, aclUserOf(conn.client)) : { events: [], ms: 0, endedEarly: false };
    const views = await readViews(conn, 'keys' in opts.target ? opts.target : { keys: before.map((v) => v.key) });
    const connections = await readAll(conn, clientList, limits, 'connections are not described (name, library, age, idle) and liveness is unknown');
    // Asked only when a lock has subscribers: it is what ties them to connections, and outside +@read.
    const subscribed = views.some((v) => v.waiters > 0);
    const channels = subscribed ? await readAll(conn, channelList, limits, 'subscribed connections are not tied to a lock') : [];
    const own = (connections ?? []).filter((c) => c.name !== undefined && OWN_NAMES.has(c.name)).map((c) => c.addr);
    const facts: WhoFacts = { views, events, connections, remembered: opts.remembered, channels, own };
    return { ...resolveWho(facts), sample: { ms, endedEarly }, limits, readAt: views[0]?.readAt ?? Date.now() };
  } finally {
    await conn.close();
  }
}
