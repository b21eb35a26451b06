import type { RawSnapshot } from '../../src/core/decode/index.js';

// Raw snapshots as inspect-snapshot.lua would return them, for pure decoder tables.

export const NOW = 1_800_000_000_000;
export const A = '11111111-1111-4111-8111-111111111111';
export const B = '22222222-2222-4222-8222-222222222222';
export const C = '33333333-3333-4333-8333-333333333333';

export function raw(over: Partial<RawSnapshot> = {}): RawSnapshot {
  return {
    key: 'orders',
    type: 'none',
    pttl: -2,
    nowMs: NOW,
    size: 0,
    body: [],
    cap: 10_000,
    companionsRead: true,
    queueLength: 0,
    queue: [],
    deadlineCount: 0,
    deadlines: [],
    readers: [],
    permitCount: 0,
    permitTtl: -2,
    permits: [],
    channels: { lock: 0, rw: 0, semaphore: 0, latch: 0 },
    waiterSubscribers: [],
    limiter: [],
    ...over,
  };
}

const flat = (fields: Record<string, string | number>): string[] => Object.entries(fields).flatMap(([f, v]) => [f, String(v)]);

export function hashRaw(fields: Record<string, string | number>, over: Partial<RawSnapshot> = {}): RawSnapshot {
  return raw({ type: 'hash', pttl: 10_000, size: Object.keys(fields).length, body: flat(fields), ...over });
}

export function stringRaw(value: string, over: Partial<RawSnapshot> = {}): RawSnapshot {
  return raw({ type: 'string', pttl: 10_000, size: value.length, body: [value], ...over });
}

/** A fair queue: entries head first, each with a deadline relative to NOW (null = no score). */
export function fairParts(entries: readonly [string, number | null][]): Partial<RawSnapshot> {
  const deadlines = entries.flatMap(([owner, d]) => (d === null ? [] : [owner, String(NOW + d)]));
  return {
    queueLength: entries.length,
    queue: entries.map(([owner]) => owner),
    deadlineCount: deadlines.length / 2,
    deadlines,
    waiterSubscribers: entries.map(() => 1),
  };
}
