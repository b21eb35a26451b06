import type { RawLimiterState, RawSnapshot, RawTimeoutProbe } from '../core/decode/index.js';

// inspect-snapshot.lua's reply, checked element by element before it reaches core/: a script
// change that breaks the contract fails here, loudly, instead of decoding into a wrong view.

export class SnapshotReplyError extends Error {
  constructor(key: string, detail: string) {
    super(`unexpected inspect snapshot reply for "${key}": ${detail}`);
  }
}

type Check = (value: unknown, what: string) => never;

function reader(key: string) {
  const fail: Check = (value, what) => {
    throw new SnapshotReplyError(key, `${what} is ${JSON.stringify(value)}`);
  };
  const list = (v: unknown, what: string): unknown[] => (Array.isArray(v) ? v : fail(v, what));
  const int = (v: unknown, what: string): number => (typeof v === 'number' && Number.isInteger(v) ? v : fail(v, what));
  const str = (v: unknown, what: string): string => (typeof v === 'string' ? v : fail(v, what));
  const strings = (v: unknown[], what: string): string[] => {
    for (const s of v) if (typeof s !== 'string') fail(s, what);
    return v as string[];
  };
  const ints = (v: unknown[], what: string): number[] => {
    for (const n of v) int(n, what);
    return v as number[];
  };
  return { list, int, str, strings, ints };
}

export interface ReplyContext {
  /** The key as shown, and its hex when not UTF-8. */
  readonly key: string;
  readonly keyHex?: string | undefined;
  readonly cap: number;
  readonly companionsRead: boolean;
  readonly slotMoving?: boolean;
}

/** Checks and unpacks one snapshot reply (see the contract in inspect-snapshot.lua). */
export function parseSnapshotReply(reply: unknown, ctx: ReplyContext): RawSnapshot {
  const r = reader(ctx.key);
  const top = r.list(reply, 'the reply');
  if (top.length !== 12) throw new SnapshotReplyError(ctx.key, `${top.length} elements instead of 12`);
  const time = r.strings(r.list(top[2], 'TIME'), 'TIME');
  const queue = r.list(top[5], 'queue');
  const deadlines = r.list(top[6], 'deadlines');
  const counter = r.strings(r.list(top[7], 'counter'), 'counter');
  const permits = r.list(top[9], 'permits');
  const subscribers = r.ints(r.list(top[10], 'subscribers'), 'subscriber count');
  if (subscribers.length < 4) throw new SnapshotReplyError(ctx.key, 'fewer than 4 subscriber counts');
  const readers: RawTimeoutProbe[] = r.list(top[8], 'readers').map((row) => {
    const cells = r.list(row, 'reader probe');
    return { holder: r.str(cells[0], 'reader name'), count: r.int(cells[1], 'reader count'), keys: r.ints(cells.slice(2), 'timeout key') };
  });
  const limiter: RawLimiterState[] = r.list(top[11], 'limiter').map((row) => {
    const cells = r.list(row, 'limiter state');
    const value = r.str(cells[1], 'limiter value');
    return {
      client: r.str(cells[0], 'limiter client'),
      value: value === '' ? undefined : value,
      valueTtl: r.int(cells[2], 'limiter value TTL'),
      grantCount: r.int(cells[3], 'limiter grant count'),
      grantsTtl: r.int(cells[4], 'limiter grants TTL'),
      grants: r.strings(cells.slice(5), 'limiter grant'),
    };
  });
  return {
    key: ctx.key,
    ...(ctx.keyHex !== undefined ? { keyHex: ctx.keyHex } : {}),
    type: r.str(top[0], 'TYPE'),
    pttl: r.int(top[1], 'PTTL'),
    nowMs: Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000),
    size: r.int(top[3], 'size'),
    body: r.strings(r.list(top[4], 'body'), 'body entry'),
    cap: ctx.cap,
    companionsRead: ctx.companionsRead,
    ...(ctx.slotMoving ? { slotMoving: true } : {}),
    queueLength: r.int(queue[0], 'queue length'),
    queue: r.strings(queue.slice(1), 'queue entry'),
    deadlineCount: r.int(deadlines[0], 'deadline count'),
    deadlines: r.strings(deadlines.slice(1), 'deadline'),
    counter: counter[0],
    readers,
    permitCount: r.int(permits[0], 'permit count'),
    permitTtl: r.int(permits[1], 'permit TTL'),
    permits: r.strings(permits.slice(2), 'permit'),
    channels: { lock: subscribers[0]!, rw: subscribers[1]!, semaphore: subscribers[2]!, latch: subscribers[3]! },
    waiterSubscribers: subscribers.slice(4),
    limiter,
  };
}
