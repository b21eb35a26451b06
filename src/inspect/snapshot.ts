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

/** Key indexes per Cluster primary: one pipeline per node, since a pipeline may not span nodes. */
function byNode(conn: Connection, keys: readonly InspectKey[]): number[][] {
  if (conn.topology !== 'cluster') return [keys.map((_, i) => i)];
  const { slots } = conn.client as ClusterClient;
  const groups = new Map<string, number[]>();
  keys.forEach((key, i) => {
    const node = slots[calculateSlot(key)]?.[0] ?? '';
    const group = groups.get(node);
    if (group) group.push(i);
    else groups.set(node, [i]);
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
async function snapshotRedirected(conn: Connection, key: InspectKey, cap: number, how: 'moved' | 'moving'): Promise<{ raw: unknown; t: ScriptTarget }> {
  const t = scriptTarget(key, true, how === 'moved');
  try {
    return { raw: await runScript(conn.client, 'inspectSnapshot', t.keys as string[], snapshotArgs(t, cap, true)), t };
  } catch (err) {
    throw toCliError(err, conn.label);
  }
}

/** One node's snapshots: by the script, or by plain reads once the server refused it (remembered per connection). */
async function snapshotBatch(conn: Connection, keys: readonly InspectKey[], cap: number): Promise<Batch> {
  if (!scriptRefused.has(conn.client)) {
    try {
      return await scriptBatch(conn, keys, cap);
    } catch (err) {
      if (!isScriptRefusal(err)) throw err;
      scriptRefused.add(conn.client);
    }
  }
  return plainBatch(conn, keys, cap);
}

/**
 * The script's reads as plain commands, which cannot be atomic: every key is read twice and
 * a key whose two reads differ is read once more; one that still differs is marked so.
 */
async function plainBatch(conn: Connection, keys: readonly InspectKey[], cap: number): Promise<Batch> {
  const client = conn.client;
  const cluster = conn.topology === 'cluster';
  const batch = new CommandBatch(client);
  const targets = keys.map((key) => scriptTarget(key, cluster));
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
    throw toCliError(err, conn.label);
  }
}

/** One round trip to one node: a snapshot per key, then INFO replication for that node. */
async function scriptBatch(conn: Connection, keys: readonly InspectKey[], cap: number): Promise<Batch> {
  const client = conn.client;
  prepareScripts(client);
  const pipeline = client.pipeline();
  const cluster = conn.topology === 'cluster';
  const targets = keys.map((key) => scriptTarget(key, cluster));
  for (const t of targets) {
    pipelineScript(pipeline as unknown as Record<string, unknown>, 'inspectSnapshot', t.keys as string[], snapshotArgs(t, cap, cluster));
  }
  pipeline.info('replication');
  let results: [Error | null, unknown][] | null;
  try {
    results = await pipeline.exec();
  } catch (err) {
    throw toCliError(err, conn.label);
  }
  if (!results) throw toCliError(new Error('Connection is closed'), conn.label);
  const reply = (i: number): unknown => {
    const [err, value] = results[i]!;
    if (err) throw toCliError(err, conn.label);
    return value;
  };
  const raws = await Promise.all(
    targets.map(async (first, i) => {
      const how = cluster ? redirection(results[i]![0]) : undefined;
      const { raw, t } = how ? await snapshotRedirected(conn, keys[i]!, cap, how) : { raw: reply(i), t: first };
      const slotMoving = how === 'moving';
      return parseSnapshotReply(raw, { key: t.display, keyHex: t.keyHex, cap, companionsRead: t.companionsRead, slotMoving });
    }),
  );
  const info = reply(targets.length);
  return { raws, replicas: typeof info === 'string' ? parseReplicas(info) : undefined };
}

/**
 * Raw snapshots of every key, in the order given: one pipeline per node, all sent at once (a
 * single round trip outside Cluster). Each snapshot is one read-only script, so a key changing
 * or vanishing mid-read is seen whole or not at all; for a user who may not run scripts, plain
 * reads stand in and each snapshot says how consistent it is.
 */
export async function snapshotKeys(
  conn: Connection,
  keys: readonly InspectKey[],
  cap: number = DEFAULT_CAP,
): Promise<KeySnapshot[]> {
  const out = new Array<KeySnapshot>(keys.length);
  if (keys.length === 0) return out;
  const groups = byNode(conn, keys);
  const batches = await Promise.all(groups.map((g) => snapshotBatch(conn, g.map((i) => keys[i]!), cap)));
  groups.forEach((g, b) =>
    g.forEach((keyIndex, j) => (out[keyIndex] = { raw: batches[b]!.raws[j]!, replicas: batches[b]!.replicas, consistency: batches[b]!.consistency?.[j] })),
  );
  return out;
}

/** Decoded views of every key (what inspect prints, --watch polls each tick and ls classifies). */
export async function inspectKeys(conn: Connection, keys: readonly InspectKey[], opts: InspectOptions = {}): Promise<LockView[]> {
  const snapshots = await snapshotKeys(conn, keys, opts.cap ?? DEFAULT_CAP);
  return snapshots.map((snapshot) => viewOf(snapshot, opts.kind));
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
