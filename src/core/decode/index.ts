import { UsageError } from '../errors.js';
import { unknownChoiceMessage } from '../foreign-names.js';
import { INSPECT_KINDS, type InspectKind, type LockView, type LockWarning } from '../lock-view.js';
import { COMPANION_TYPE, companionOf, describeCompanion } from './companions.js';
import type { KindDecoder, KindFields } from './fields.js';
import { decodeHashLock } from './hash.js';
import { decodeMultiLock } from './multi-lock.js';
import { decodeRateLimiter } from './rate-limiter.js';
import type { RawSnapshot } from './raw.js';
import { fits, recognize } from './recognize.js';
import { decodeRw } from './rw.js';
import { NO_TTL_BY_DESIGN, tokenLibrary, WITHOUT_DEFAULT_EXPIRY } from './token-library.js';
import { decodeExpirableSemaphore, decodeLatch, decodeSemaphore, decodeToken } from './strings.js';
import { finishWarnings, warn } from './warnings.js';
import { decodeRsSemaphore } from './zset.js';

export type { RawLimiterState, RawSnapshot, RawTimeoutProbe } from './raw.js';

/** Our lock kinds (acquire --kind) and the inspect kind each is stored as. */
const LOCK_KIND_ALIASES: Readonly<Record<string, InspectKind>> = { read: 'rw', write: 'rw', spin: 'reentrant', redlock: 'token' };

/** `--kind` for inspect and ls: an inspect kind, or one of our lock kinds (read, write, spin, redlock). */
export function parseInspectKind(text: string): InspectKind {
  if ((INSPECT_KINDS as readonly string[]).includes(text)) return text as InspectKind;
  const alias = LOCK_KIND_ALIASES[text];
  if (alias) return alias;
  throw new UsageError(unknownChoiceMessage('kind', text, [...INSPECT_KINDS, ...Object.keys(LOCK_KIND_ALIASES)]));
}

/** Kinds whose key must have a TTL: without one, a dead holder keeps it locked forever. */
const EXPIRING: ReadonlySet<InspectKind> = new Set(['reentrant', 'fair', 'rw', 'fenced', 'multi-lock', 'token', 'rs-semaphore']);

function notALock(raw: RawSnapshot, warnings: LockWarning[]): KindFields {
  const companion = companionOf(raw.key);
  if (companion && COMPANION_TYPE[companion.role] === raw.type) {
    warnings.push(warn('companion-key', 'info', `this is ${describeCompanion(companion)}: inspect "${companion.lock}" to see the lock`));
  }
  return { holders: [], size: raw.size, waiters: 0 };
}

function missing(raw: RawSnapshot, warnings: LockWarning[]): KindFields {
  // Redisson waiters still subscribed to a key that is gone: deleted without the unlock message.
  const waiters = raw.channels.lock + raw.channels.rw;
  if (waiters > 0) {
    warnings.push(
      warn('waiters-without-lock', 'warning', `${waiters} clients wait on its unlock channel although the key is gone: it was deleted without waking them`),
    );
  }
  return { holders: [], waiters };
}

const DECODERS: Record<InspectKind, KindDecoder> = {
  reentrant: (raw, w) => decodeHashLock('reentrant', raw, w),
  fenced: (raw, w) => decodeHashLock('fenced', raw, w),
  fair: (raw, w) => decodeHashLock('fair', raw, w),
  rw: decodeRw,
  'multi-lock': decodeMultiLock,
  'rate-limiter': decodeRateLimiter,
  token: decodeToken,
  semaphore: decodeSemaphore,
  latch: decodeLatch,
  'expirable-semaphore': decodeExpirableSemaphore,
  'rs-semaphore': decodeRsSemaphore,
  'not-a-lock': notALock,
  missing,
};

/** A lock without TTL: an error, but where its library takes locks without one by default, a note on the risk. */
function noTtlWarning(kind: InspectKind, raw: RawSnapshot): LockWarning {
  const library = kind === 'token' ? tokenLibrary(raw.key, raw.body[0] ?? '', raw.nowMs) : undefined;
  const note = library === undefined ? undefined : WITHOUT_DEFAULT_EXPIRY.get(library);
  if (note !== undefined) return warn(NO_TTL_BY_DESIGN, 'info', note);
  return warn('no-ttl', 'error', 'no TTL: will never expire; if its holder dies it stays locked until someone deletes it');
}

const ALSO: Partial<Record<InspectKind, string>> = { 'not-a-lock': 'plain data' };

export interface DecodeOptions {
  /** Read the data as this kind when it fits (an ambiguous integer string, a 32-hex token, ...). */
  readonly kind?: InspectKind | undefined;
}

/** Raw snapshot → the documented LockView (pure; the same input always gives the same view). */
export function decodeSnapshot(raw: RawSnapshot, opts: DecodeOptions = {}): LockView {
  const seen = recognize(raw);
  const warnings: LockWarning[] = [];
  let kind = seen.kind;
  if (opts.kind !== undefined && opts.kind !== seen.kind) {
    if (fits(opts.kind, raw)) kind = opts.kind;
    else warnings.push(warn('kind-mismatch', 'warning', `a ${raw.type === 'none' ? 'missing key' : raw.type} cannot be read as ${opts.kind}: shown as ${seen.kind}`));
  } else if (opts.kind === undefined && seen.tokenWithoutExpiry !== undefined) {
    const why = seen.tokenWithoutExpiry === 'unknown' ? 'its name looks like a lock' : `the value has the form of a ${seen.tokenWithoutExpiry} token`;
    warnings.push(
      warn('token-without-expiry', 'info', `read as plain data, since every token library sets a TTL; it could be a token lock set without expiry (${why}): --kind token reads it as one`),
    );
  } else if (opts.kind === undefined && seen.alternatives && !seen.sameReading) {
    const others = seen.alternatives.map((k) => `--kind ${k}`).join(' or ');
    warnings.push(warn('ambiguous-kind', 'info', `read as ${ALSO[kind] ?? `a ${kind}`}; the same data could be another kind: ${others}`));
  }
  if (EXPIRING.has(kind) && raw.type !== 'none' && raw.pttl === -1) warnings.push(noTtlWarning(kind, raw));
  if (raw.slotMoving) {
    warnings.push(warn('companions-not-read', 'info', 'its Cluster slot is moving between nodes, which serve it one key at a time: queue, counter and timeout keys were not read'));
  } else if (!raw.companionsRead) {
    warnings.push(warn('companions-not-read', 'info', "its companion keys hash to another Cluster slot (the name's braces): queue, counter and timeout keys were not read"));
  }
  const fields = DECODERS[kind](raw, warnings);
  return {
    key: raw.key,
    ...(raw.keyHex !== undefined ? { keyHex: raw.keyHex } : {}),
    kind,
    ...(opts.kind === undefined && seen.alternatives ? { possibleKinds: [kind, ...seen.alternatives] } : {}),
    type: raw.type,
    ttlMs: raw.pttl,
    ...fields,
    warnings: finishWarnings(warnings),
    readAt: raw.nowMs,
  };
}
