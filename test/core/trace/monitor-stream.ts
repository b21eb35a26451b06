import { decodeLines, type DecoderOptions } from '../../../src/core/trace/decoder.js';
import { type DigestEntry, knownDigest } from '../../../src/core/trace/digest-catalogue.js';
import type { TraceEvent } from '../../../src/core/trace/events.js';
import type { MonitorLine } from '../../../src/core/trace/monitor-line.js';

// Streams as Redis 7.0 prints them, for decoder tests: a script's own commands (`lua`) follow its
// EVAL / EVALSHA line. Times are ms after T0; two client addresses, two Redisson owners.

export const T0 = 1_764_064_800_000;
export const A = '127.0.0.1:5001';
export const B = '127.0.0.1:5002';
export const at = (ms: number, source: string, ...args: string[]): MonitorLine => ({ t: T0 + ms, db: 0, source, args });
export const lua = (ms: number, ...args: string[]): MonitorLine => at(ms, 'lua', ...args);
export const OWNER_A = '6f1c2a3b-0000-4000-8000-000000000001:1';
export const OWNER_B = '9e8d7c6b-0000-4000-8000-000000000002:7';

/** What a stream decodes to, less the attempts (every script call is one): the outcomes a test asserts. */
export const outcomes = (lines: Iterable<MonitorLine>, opts?: DecoderOptions): TraceEvent[] =>
  decodeLines(lines, opts).filter((e) => e.kind !== 'attempt');

/** Each event as a row: its kind, lock, owner (or the holders a refusal names) and ms after T0. */
export const rows = (events: readonly TraceEvent[]): unknown[][] =>
  events.map((e) => [e.kind, e.lock, e.owner ?? e.holders?.join(','), e.t - T0]);

/** What the digest catalogue says of each script digest (undefined for one it does not know). */
export const catalogued = (digests: readonly string[]): (DigestEntry | undefined)[] =>
  digests.map((sha) => knownDigest(sha));
