import { COMPANION_TYPE, companionOf, type Companion } from '../core/decode/companions.js';
import type { RawSnapshot } from '../core/decode/raw.js';
import { recognize } from '../core/decode/recognize.js';
import { MOVING_IN, PROBE_VALUE_MAX, type KeyProbe } from './scan-probe.js';

// What ls and doctor do with a scanned key before paying for a full snapshot. The decisions are
// the decoder's own (recognize, companionOf) on what the probe saw, never a second set of rules:
// a key is dropped here only where the snapshot's extra facts (companions, channels) could not
// change the decoder's answer.

export type KeyFate =
  /** Redisson's transient unlock latch: not lock state. */
  | { readonly fate: 'skip' }
  /** Part of another lock (fair queue, read-hold key, ...): listed with its lock, checked by doctor. */
  | { readonly fate: 'companion'; readonly companion: Companion }
  /** The decoder would call it `not-a-lock` whatever else a snapshot read. */
  | { readonly fate: 'not-a-lock' }
  /** Needs the full snapshot to tell. */
  | { readonly fate: 'inspect' };

const INTEGER = /^-?\d+$/;
const NO_CHANNELS = { lock: 0, rw: 0, semaphore: 0, latch: 0 } as const;
const ASSUMED_TTL_MS = 1000;

/**
 * The snapshot the decoder would get for a plain string, minus companions and channels, and with
 * a TTL whatever the real one: for strings that are not integers a TTL only ever turns
 * "not-a-lock" into "token" (recognize.ts), so a string called not-a-lock even with one is
 * not-a-lock without one too, and the probe can skip PTTL.
 */
function stringSnapshot(key: string, probe: KeyProbe, nowMs: number): RawSnapshot {
  return {
    key,
    type: 'string',
    pttl: ASSUMED_TTL_MS,
    nowMs,
    size: probe.long ? PROBE_VALUE_MAX + 1 : probe.value.length,
    body: probe.long ? [] : [probe.value],
    cap: 0,
    companionsRead: false,
    queueLength: 0,
    queue: [],
    deadlineCount: 0,
    deadlines: [],
    readers: [],
    permitCount: 0,
    permitTtl: -2,
    permits: [],
    channels: NO_CHANNELS,
    waiterSubscribers: [],
    limiter: [],
  };
}

/**
 * Hashes and zsets need their fields or members; integer strings need their channels, permit
 * zset and TTL (semaphore, latch, expirable semaphore, token). Every other string is decided from
 * its value and name alone, and lists, sets and streams are never locks. A key deleted since SCAN
 * probes as an empty string: the snapshot then finds it missing.
 */
export function keyFate(key: string, probe: KeyProbe, nowMs: number): KeyFate {
  const companion = companionOf(key);
  if (companion && COMPANION_TYPE[companion.role] === probe.type) {
    return companion.role === 'unlock-latch' ? { fate: 'skip' } : { fate: 'companion', companion };
  }
  switch (probe.type) {
    case 'hash':
    case 'zset':
    case MOVING_IN:
      return { fate: 'inspect' };
    case 'string':
      if (!probe.long && INTEGER.test(probe.value)) return { fate: 'inspect' };
      return recognize(stringSnapshot(key, probe, nowMs)).kind === 'not-a-lock' ? { fate: 'not-a-lock' } : { fate: 'inspect' };
    default:
      return { fate: 'not-a-lock' };
  }
}
