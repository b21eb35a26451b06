import type { LockView, LockWarning } from '../lock-view.js';
import type { RawSnapshot } from './raw.js';

/** The part of a LockView that depends on the kind; decode() adds key, kind, TTL, warnings, time. */
export type KindFields = Omit<LockView, 'key' | 'keyHex' | 'kind' | 'type' | 'ttlMs' | 'warnings' | 'readAt'>;

/** One kind's decoder: reads the snapshot, adds its warnings. */
export type KindDecoder = (raw: RawSnapshot, warnings: LockWarning[]) => KindFields;

/** Parses a zset score: Redis may answer `inf`; a deadline that is not a finite number counts as none. */
export function scoreMs(text: string | undefined): number | null {
  const n = Number(text);
  return text === undefined || !Number.isFinite(n) ? null : n;
}
