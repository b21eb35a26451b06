import type { BatchArg, CommandBatch } from '../redis/batch.js';
import type { RedisClient } from '../redis/connection.js';
import { PermissionError } from '../core/errors.js';
import type { ScriptTarget } from './keys.js';

// inspect-snapshot.lua done with plain read commands, for a user who may not run scripts: the same
// reads in the same order, giving the same reply, which parseSnapshotReply checks as it checks the
// script's. Not atomic: each step is a round trip (all keys' steps share it, see CommandBatch).
// TIME and PUBSUB NUMSUB are outside +@read: where they are refused, the client's clock and zero
// subscribers stand in (a refusal is remembered per connection, so it is not sent again).

/** A Redisson holder field starts with the client's UUID (the script's HOLDER pattern). */
const HOLDER = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:/;
const CHANNEL_CHUNK = 500;

export interface PlainReadOptions {
  readonly cap: number;
  readonly orphanProbe: number;
  readonly cluster: boolean;
}

export interface PlainRead {
  /** The reply inspect-snapshot.lua would have given. */
  readonly reply: unknown[];
  /** What must be equal in two reads of an unchanged key (TTLs as absolute expiry, no clocks or subscriber counts). */
  readonly fingerprint: string;
}

const refusedOn = new WeakMap<RedisClient, Set<string>>();

/** Reads that may be refused by the user's ACL: the fallback value then, and remembered for this client. */
async function optional<T>(client: RedisClient, name: string, read: () => Promise<T>, fallback: T): Promise<T> {
  const refused = refusedOn.get(client) ?? new Set<string>();
  refusedOn.set(client, refused);
  if (refused.has(name)) return fallback;
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof PermissionError)) throw err;
    refused.add(name);
    return fallback;
  }
}

const suffixed = (base: BatchArg, suffix: string): BatchArg => (Buffer.isBuffer(base) ? Buffer.concat([base, Buffer.from(suffix, 'latin1')]) : `${String(base)}${suffix}`);
const strings = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);
/** ioredis hands HGETALL back as an object, even in a pipeline: the script's flat field, value list. */
const pairs = (v: unknown): string[] => (v !== null && typeof v === 'object' ? Object.entries(v as Record<string, string>).flat() : []);

/** One key read step by step; every call through `b` joins the other keys' calls of the same step. */
export async function plainRead(b: CommandBatch, client: RedisClient, t: ScriptTarget, opts: PlainReadOptions): Promise<PlainRead> {
  const [key, queueKey, deadlinesKey, counterKey, permitsKey, readPrefix, limiterValueKey, limiterGrantsKey] = t.keys as BatchArg[] as [
    BatchArg, BatchArg, BatchArg, BatchArg, BatchArg, BatchArg, BatchArg, BatchArg,
  ];
  const { cap } = opts;
  const companions = t.companionsRead;
  const [type, expireAt, companionTypes] = (await Promise.all([
    b.call('type', key),
    b.call('pexpiretime', key),
    companions ? Promise.all([queueKey, deadlinesKey, counterKey, permitsKey].map((k) => b.call('type', k))) : [],
  ])) as [string, number, string[]];
  const [queueType, deadlinesType, counterType, permitsType] = companionTypes;
  const { size, body, complete } = await readBody(b, key, type, cap, t.display);

  // Hash locks (and a free fair or fenced lock, whose hash is gone) have these companions.
  const lockCompanions = companions && (type === 'hash' || type === 'none');
  const counted = (count: string, range: [string, ...BatchArg[]]): Promise<unknown[]> =>
    Promise.all([b.call(count, range[1]!), b.call(...range)]).then(([n, entries]) => [n, ...strings(entries)]);
  const [queue, deadlines, counter, permits] = await Promise.all([
    lockCompanions && queueType === 'list' ? counted('llen', ['lrange', queueKey, 0, cap - 1]) : [0],
    lockCompanions && deadlinesType === 'zset' ? counted('zcard', ['zrange', deadlinesKey, 0, cap - 1, 'WITHSCORES']) : [0],
    lockCompanions && counterType === 'string' ? b.call('get', counterKey).then((v) => [v]) : [],
    companions && (type === 'string' || type === 'none') && permitsType === 'zset' ? readPermits(b, permitsKey, cap) : [0, -2],
  ]);
  const readers = companions && complete && type === 'hash' && hasField(body, 'mode') ? await readHolds(b, readPrefix, body, cap, opts.orphanProbe) : [];
  const limiter =
    companions && type === 'hash' && hasField(body, 'rate') && hasField(body, 'interval')
      ? await Promise.all(['', ...t.limiterClients].map((id) => readLimiterState(b, id, limiterValueKey, limiterGrantsKey, cap)))
      : [];
  const [subscribers, time, pttl] = await Promise.all([
    countSubscribers(b, client, t, type, body, queue.slice(1) as string[], opts.cluster),
    optional(client, 'time', () => b.call('time'), clientTime()),
    b.call('pttl', key),
  ]);
  const reply = [type, pttl, time, size, body, queue, deadlines, counter, readers, permits, subscribers, limiter];
  // TTLs as the absolute expiry, reader holds by which exist: what a change of the key changes.
  const holds = readers.map((row) => row.filter((_, i) => i < 2 || i % 2 === 0));
  const states = limiter.map((row) => [row[0], row[1], row[3], ...row.slice(5)]);
  const fingerprint = JSON.stringify([type, expireAt, size, body, queue, deadlines, counter, holds, permits.slice(0, 1), permits.slice(2), states]);
  return { reply, fingerprint };
}

const hasField = (body: readonly string[], field: string): boolean => body.some((v, i) => i % 2 === 0 && v === field);
const clientTime = (): string[] => {
  const now = Date.now();
  return [String(Math.floor(now / 1000)), String((now % 1000) * 1000)];
};

async function readPermits(b: CommandBatch, permitsKey: BatchArg, cap: number): Promise<unknown[]> {
  const [count, ttl, entries] = await Promise.all([b.call('zcard', permitsKey), b.call('pttl', permitsKey), b.call('zrange', permitsKey, 0, cap - 1, 'WITHSCORES')]);
  // Redisson >= 3.17 stores permit ids as raw bytes: hex, as the script gives them.
  const pairs = strings(entries).flatMap((v, i) => (i % 2 === 0 ? [Buffer.from(v, 'latin1').toString('hex')] : [v]));
  return [count, ttl, ...pairs];
}

/**
 * One rate limiter state as the script's row: client, value ('' absent), its PTTL, grant count,
 * the zset's PTTL, then hex member, score, ... Members are raw bytes: read as Buffers.
 */
async function readLimiterState(b: CommandBatch, client: string, valueBase: BatchArg, grantsBase: BatchArg, cap: number): Promise<unknown[]> {
  const valueKey = client === '' ? valueBase : suffixed(valueBase, `:${client}`);
  const grantsKey = client === '' ? grantsBase : suffixed(grantsBase, `:${client}`);
  const [valueType, valueTtl, grantsType] = (await Promise.all([b.call('type', valueKey), b.call('pttl', valueKey), b.call('type', grantsKey)])) as [string, number, string];
  const value = valueType === 'string' ? ((await b.call('get', valueKey)) as string) : '';
  if (grantsType !== 'zset') return [client, value, valueTtl, 0, -2];
  const [count, ttl, entries] = await Promise.all([b.call('zcard', grantsKey), b.call('pttl', grantsKey), b.call('zrangeBuffer', grantsKey, 0, cap - 1, 'WITHSCORES')]);
  const grants = (Array.isArray(entries) ? (entries as Buffer[]) : []).map((v, i) => (i % 2 === 0 ? v.toString('hex') : v.toString()));
  return [client, value, valueTtl, count, ttl, ...grants];
}

/** Read-hold timeout keys of every holder named in a rw hash (the script's readers rows). */
async function readHolds(b: CommandBatch, prefix: BatchArg, body: readonly string[], cap: number, probe: number): Promise<unknown[][]> {
  const counts = new Map<string, number>();
  for (let i = 0; i < body.length; i += 2) {
    let field = body[i]!;
    let n = Number.parseInt(body[i + 1] ?? '', 10) || 0;
    if (field === 'mode') continue;
    if (field.endsWith(':write')) [field, n] = [field.slice(0, -6), 0];
    counts.set(field, Math.max(n, counts.get(field) ?? n));
  }
  return Promise.all(
    [...counts].map(async ([holder, count]) => {
      const indexes = Array.from({ length: Math.min(count, cap) + probe }, (_, i) => i + 1);
      const ttls = await Promise.all(indexes.map((i) => b.call('pttl', suffixed(prefix, `:${holder}:rwlock_timeout:${i}`)) as Promise<number>));
      return [holder, count, ...indexes.flatMap((i, j) => (ttls[j] === -2 ? [] : [i, ttls[j]]))];
    }),
  );
}

/**
 * Waiting clients on the channels this type of key can have (a token lock has none), then on
 * each queued waiter's own channel; SSUBSCRIBE ones too on a Cluster.
 */
async function countSubscribers(b: CommandBatch, client: RedisClient, t: ScriptTarget, type: string, body: readonly string[], queue: readonly string[], cluster: boolean): Promise<number[]> {
  const [lock, rw, semaphore, latch] = t.channels as [BatchArg, BatchArg, BatchArg, BatchArg];
  const wanted: [number, BatchArg][] = [];
  if (type === 'hash' || type === 'none') wanted.push([0, lock], [1, rw]);
  else if (type === 'string' && /^-?\d+$/.test(body[0] ?? '')) wanted.push([2, semaphore], [3, latch]);
  queue.forEach((entry, i) => wanted.push([i + 4, suffixed(lock, `:${entry}`)]));
  const counts = [0, 0, 0, 0, ...queue.map(() => 0)];
  const numsub = async (sub: string, channels: BatchArg[]): Promise<number[]> => {
    const reply = (await optional(client, `pubsub|${sub}`, () => b.call('pubsub', sub, ...channels), [])) as unknown[];
    return channels.map((_, j) => Number(reply[2 * j + 1] ?? 0));
  };
  for (let from = 0; from < wanted.length; from += CHANNEL_CHUNK) {
    const chunk = wanted.slice(from, from + CHANNEL_CHUNK);
    const channels = chunk.map(([, channel]) => channel);
    const [plain, sharded] = await Promise.all([numsub('numsub', channels), cluster ? numsub('shardnumsub', channels) : []]);
    chunk.forEach(([slot], j) => (counts[slot] = plain[j]! + (sharded[j] ?? 0)));
  }
  return counts;
}

async function readBody(b: CommandBatch, key: BatchArg, type: string, cap: number, display: string): Promise<{ size: number; body: string[]; complete: boolean }> {
  if (type === 'hash') {
    const [size, sample, mode] = (await Promise.all([b.call('hlen', key), b.call('hscan', key, 0, 'COUNT', 16), b.call('hget', key, 'mode')])) as [number, [string, string[]], string | null];
    // Lock hashes are small; a big hash is application data far more often (the script's rule).
    if (size <= 64 || ((mode !== null || HOLDER.test(sample[1][0] ?? '')) && size <= cap)) return { size, body: pairs(await b.call('hgetall', key)), complete: true };
    const body = [...sample[1]];
    if (mode !== null && !body.some((v, i) => i % 2 === 0 && v === 'mode')) body.push('mode', mode);
    return { size, body, complete: false };
  }
  if (type === 'string') {
    const [size, value] = (await Promise.all([b.call('strlen', key), b.call('getrange', key, 0, 511)])) as [number, string];
    return { size, body: size <= 512 ? [value] : [], complete: true };
  }
  if (type === 'zset') {
    const [size, entries] = await Promise.all([b.call('zcard', key) as Promise<number>, display.startsWith('semaphore:') ? b.call('zrange', key, 0, cap - 1, 'WITHSCORES') : []]);
    return { size, body: strings(entries), complete: true };
  }
  const sizeOf: Record<string, string> = { list: 'llen', set: 'scard', stream: 'xlen' };
  const command = sizeOf[type];
  return { size: command ? ((await b.call(command, key)) as number) : 0, body: [], complete: true };
}
