import calculateSlot from 'cluster-key-slot';
import { decodeSnapshot, type RawSnapshot } from '../core/decode/index.js';
import type { InspectKind, LockView, ReadConsistency, ReplicaView } from '../core/lock-view.js';
import { CommandBatch } from '../redis/batch.js';
import type { Connection, RedisClient } from '../redis/connection.js';
import { toCliError } from '../redis/errors.js';
import { isScriptRefusal } from '../redis/permissions.js';
import { pipelineScript, prepareScripts, runScript, type ScriptArg } from '../redis/scripts.js';
import { plainRead } from './plain-snapshot.js';
import { scriptTarget, type InspectKey, type ScriptTarget } from './keys.js';
import { parseReplicas } from './replication.js';
import { parseSnapshotReply } from './reply.js';
import { unreadReason, type UnreadNode } from './scan.js';
import { clusterPrimaries } from '../redis/cluster-detect.js';
import { limiterClients, needsLimiterClients, type LimiterClients } from './limiter-clients.js';

export type { InspectKey } from './keys.js';

/** Entries read from one hash, list or zset; beyond it a hash is sampled and the rest cut. */
export const DEFAULT_CAP = 10_000;
/** Read-hold indexes probed past each reader's count, where orphan timeout keys are found. */
export const ORPHAN_PROBE = 3;

export interface InspectOptions {
  /** Read every key as this kind where the data fits (--kind). */
  readonly kind?: InspectKind | undefined;
  readonly cap?: number | undefined;
}

interface Batch {
  readonly raws: RawSnapshot[];
  readonly replicas: ReplicaView[] | undefined;
  /** Per key; undefined when the script read them all atomically. */
  readonly consistency?: readonly ReadConsistency[];
}

export interface KeySnapshot {
  readonly raw: RawSnapshot;
  readonly replicas: ReplicaView[] | undefined;
  readonly consistency?: ReadConsistency | undefined;
}

/** Connections whose user may not run the snapshot script: their reads go straight to plain commands. */
const scriptRefused = new WeakSet<RedisClient>();

type ClusterClient = Extract<RedisClient, { slots: unknown }>;

/** Keys read in one pipeline: the server's, or one Cluster primary's (with its slots, for a partial answer). */
interface NodeGroup {
  readonly label: string;
  readonly slots?: string;
  readonly indexes: number[];
}

/** Key indexes per Cluster primary: one pipeline per node, since a pipeline may not span nodes. */
function byNode(conn: Connection, keys: readonly InspectKey[]): NodeGroup[] {
  if (conn.topology !== 'cluster') return [{ label: conn.label, indexes: keys.map((_, i) => i) }];
  const { slots } = conn.client as ClusterClient;
  const ranges = new Map(clusterPrimaries(slots).map((p) => [p.node, p.slots]));
  const groups = new Map<string, NodeGroup>();
  keys.forEach((key, i) => {
    const node = slots[calculateSlot(key)]?.[0] ?? '';
    const group = groups.get(node) ?? groups.set(node, { label: node || conn.label, slots: ranges.get(node) ?? '?', indexes: [] }).get(node)!;
    group.indexes.push(i);
  });
  return [...groups.values()];
}

/** inspect-snapshot.lua's ARGV for one key. */
const snapshotArgs = (t: ScriptTarget, cap: number, cluster: boolean): ScriptArg[] => [
  cap,
  ORPHAN_PROBE,
  t.companionsRead ? '1' : '0',
  ...(t.channels as string[]),
  cluster ? '1' : '0',
  ...t.limiterClients,
];

/**
 * How a Cluster node sent a key elsewhere, which ioredis does not follow inside a pipeline of
 * scripts: MOVED (our slot map is stale), or a slot on the move: ASK for a key that has gone on
 * to the node importing the slot, TRYAGAIN for a script over several keys of which only some
 * have (either node, until the slot has moved).
 */
function redirection(err: Error | null): 'moved' | 'moving' | undefined {
  if (err === null) return undefined;
  if (/^MOVED /.test(err.message)) return 'moved';
  return /^(ASK|TRYAGAIN) /.test(err.message) ? 'moving' : undefined;
}

/**
 * A redirected key read again as one command, which ioredis follows: MOVED to the new owner, ASK
 * with ASKING to the node importing the slot. A moving slot serves a single key only, so then
 * the key is read alone and its companions stay unread (as for a name whose companions hash
 * elsewhere).
 */
async function snapshotRedirected(conn: Connection, key: InspectKey, clients: readonly string[], cap: number, how: 'moved' | 'moving'): Promise<{ raw: unknown; t: ScriptTarget }> {
  const t = scriptTarget(key, true, how === 'moved', clients);
  try {
    return { raw: await runScript(conn.client, 'inspectSnapshot', t.keys as string[], snapshotArgs(t, cap, true)), t };
  } catch (err) {
    throw toCliError(err, conn.label);
  }
}

/** One node's snapshots: by the script, or by plain reads once the server refused it (remembered per connection). */
async function snapshotBatch(conn: Connection, label: string, keys: readonly InspectKey[], cap: number, clients: readonly LimiterClients[]): Promise<Batch> {
  if (!scriptRefused.has(conn.client)) {
    try {
      return await scriptBatch(conn, label, keys, cap, clients);
    } catch (err) {
      if (!isScriptRefusal(err)) throw err;
      scriptRefused.add(conn.client);
    }
  }
  return plainBatch(conn, label, keys, cap, clients);
}

/**
 * The script's reads as plain commands, which cannot be atomic: every key is read twice and
 * a key whose two reads differ is read once more; one that still differs is marked so.
 */
async function plainBatch(conn: Connection, label: string, keys: readonly InspectKey[], cap: number, clients: readonly LimiterClients[]): Promise<Batch> {
  const client = conn.client;
  const cluster = conn.topology === 'cluster';
  const batch = new CommandBatch(client);
  const targets = keys.map((key, i) => scriptTarget(key, cluster, true, clients[i]));
  const options = { cap, orphanProbe: ORPHAN_PROBE, cluster };
  const readAll = (only: readonly number[]) => Promise.all(only.map((i) => plainRead(batch, client, targets[i]!, options)));
  const all = targets.map((_, i) => i);
  try {
    const [first, info] = await Promise.all([readAll(all), batch.call('info', 'replication').catch(() => undefined)]);
    const last = await readAll(all);
    const moved = all.filter((i) => first[i]!.fingerprint !== last[i]!.fingerprint);
    const again = await readAll(moved);
    const changed = new Set(moved.filter((i, j) => again[j]!.fingerprint !== last[i]!.fingerprint));
    moved.forEach((i, j) => (last[i] = again[j]!));
    const raws = targets.map((t, i) => parseSnapshotReply(last[i]!.reply, { key: t.display, keyHex: t.keyHex, cap, companionsRead: t.companionsRead }));
    const consistency = all.map((i): ReadConsistency => (changed.has(i) ? 'changed-during-read' : 'separate-reads'));
    return { raws, replicas: typeof info === 'string' ? parseReplicas(info) : undefined, consistency };
  } catch (err) {
    throw toCliError(err, label);
  }
}

/** One round trip to one node: a snapshot per key, then INFO replication for that node. */
async function scriptBatch(conn: Connection, label: string, keys: readonly InspectKey[], cap: number, clients: readonly LimiterClients[]): Promise<Batch> {
  const client = conn.client;
  prepareScripts(client);
  const pipeline = client.pipeline();
  const cluster = conn.topology === 'cluster';
  const targets = keys.map((key, i) => scriptTarget(key, cluster, true, clients[i]));
  for (const t of targets) {
    pipelineScript(pipeline as unknown as Record<string, unknown>, 'inspectSnapshot', t.keys as string[], snapshotArgs(t, cap, cluster));
  }
  pipeline.info('replication');
  let results: [Error | null, unknown][] | null;
  try {
    results = await pipeline.exec();
  } catch (err) {
    throw toCliError(err, label);
  }
  if (!results) throw toCliError(new Error('Connection is closed'), label);
  const reply = (i: number): unknown => {
    const [err, value] = results[i]!;
    if (err) throw toCliError(err, label);
    return value;
  };
  const raws = await Promise.all(
    targets.map(async (first, i) => {
      const how = cluster ? redirection(results[i]![0]) : undefined;
      const { raw, t } = how ? await snapshotRedirected(conn, keys[i]!, clients[i] ?? [], cap, how) : { raw: reply(i), t: first };
      const slotMoving = how === 'moving';
      return parseSnapshotReply(raw, { key: t.display, keyHex: t.keyHex, cap, companionsRead: t.companionsRead, slotMoving });
    }),
  );
  const info = reply(targets.length);
  return { raws, replicas: typeof info === 'string' ? parseReplicas(info) : undefined };
}

/** A key whose Cluster primary could not be read (down, or the Cluster refusing reads meanwhile). */
export interface UnreadKey {
  readonly key: string;
  readonly keyHex?: string;
  readonly unread: UnreadNode;
}

export const isUnread = <T extends object>(read: T | UnreadKey): read is UnreadKey => 'unread' in read;

/**
 * Raw snapshots of every key, in the order given: one pipeline per node, all sent at once (a
 * single round trip outside Cluster). Each snapshot is one read-only script, so a key changing
 * or vanishing mid-read is seen whole or not at all; for a user who may not run scripts, plain
 * reads stand in and each snapshot says how consistent it is. With `partial`, the keys of a
 * Cluster primary that cannot be read come back as UnreadKeys naming it, and the others are
 * still read; without, the first such failure is thrown.
 */
export async function snapshotEach(
  conn: Connection,
  keys: readonly InspectKey[],
  opts: { readonly cap?: number | undefined; readonly partial?: boolean } = {},
): Promise<(KeySnapshot | UnreadKey)[]> {
  const cap = opts.cap ?? DEFAULT_CAP;
  const out = await snapshotOnce(conn, keys, [], cap, opts.partial === true);
  // A PER_CLIENT rate limiter's client ids are known only from SCAN: its states are read again with them.
  const perClient = out.flatMap((read, i) => (read !== undefined && !isUnread(read) && needsLimiterClients(read.raw) ? [i] : []));
  if (perClient.length === 0) return out;
  const clients = await limiterClients(conn, perClient.map((i) => keys[i]!));
  const again = await snapshotOnce(conn, perClient.map((i) => keys[i]!), clients, cap, opts.partial === true);
  perClient.forEach((i, j) => (out[i] = again[j]!));
  return out;
}

/** One pass of snapshotEach: a pipeline per node, the limiter clients given per key. */
async function snapshotOnce(
  conn: Connection,
  keys: readonly InspectKey[],
  clients: readonly LimiterClients[],
  cap: number,
  partial: boolean,
): Promise<(KeySnapshot | UnreadKey)[]> {
  const out = new Array<KeySnapshot | UnreadKey>(keys.length);
  if (keys.length === 0) return out;
  const groups = byNode(conn, keys);
  const batches = await Promise.allSettled(
    groups.map((g) => snapshotBatch(conn, g.label, g.indexes.map((i) => keys[i]!), cap, g.indexes.map((i) => clients[i] ?? []))),
  );
  batches.forEach((batch, b) => {
    const { label, slots, indexes } = groups[b]!;
    if (batch.status === 'fulfilled') {
      const { raws, replicas, consistency } = batch.value;
      indexes.forEach((keyIndex, j) => (out[keyIndex] = { raw: raws[j]!, replicas, consistency: consistency?.[j] }));
      return;
    }
    const reason = partial && slots !== undefined ? unreadReason(batch.reason, label) : undefined;
    if (reason === undefined || slots === undefined) throw batch.reason;
    for (const i of indexes) {
      const { display, keyHex } = scriptTarget(keys[i]!, true);
      out[i] = { key: display, ...(keyHex !== undefined ? { keyHex } : {}), unread: { node: label, slots, reason } };
    }
  });
  return out;
}

/** Raw snapshots of every key (see snapshotEach); any key that cannot be read fails the whole read. */
export async function snapshotKeys(conn: Connection, keys: readonly InspectKey[], cap: number = DEFAULT_CAP): Promise<KeySnapshot[]> {
  return (await snapshotEach(conn, keys, { cap })) as KeySnapshot[];
}

/** Decoded views of every key (what inspect prints, --watch polls each tick and ls classifies). */
export async function inspectKeys(conn: Connection, keys: readonly InspectKey[], opts: InspectOptions = {}): Promise<LockView[]> {
  const snapshots = await snapshotKeys(conn, keys, opts.cap ?? DEFAULT_CAP);
  return snapshots.map((snapshot) => viewOf(snapshot, opts.kind));
}

/** Decoded views of the keys that could be read, and the Cluster primary of each that could not. */
export async function inspectEach(conn: Connection, keys: readonly InspectKey[], opts: InspectOptions = {}): Promise<(LockView | UnreadKey)[]> {
  const reads = await snapshotEach(conn, keys, { cap: opts.cap, partial: true });
  return reads.map((read) => (isUnread(read) ? read : viewOf(read, opts.kind)));
}

/** One snapshot decoded, with the replicas that hold it and how it was read. */
export function viewOf({ raw, replicas, consistency }: KeySnapshot, kind: InspectKind | undefined): LockView {
  const view = decodeSnapshot(raw, { kind });
  return {
    ...view,
    ...(replicas && view.kind !== 'missing' ? { replicas } : {}),
    ...(consistency ? { readConsistency: consistency } : {}),
  };
}
