// One LockView as plain text lines: what `inspect` prints, and what the live view and `ls` reuse.
// Pure: no colour, no terminal; the caller decides where lines go.
import { escapeControls, printable } from './decode/escape.js';
import { formatDuration } from './duration.js';
import type { HolderView, LockView, MultiLockValueView, QueueEntryView, ReaderView, ReplicaView, Severity } from './lock-view.js';
import { formatColumns, type TableOptions } from './text-layout.js';
import { PLAIN, type Paint } from './paint.js';
import { rateLimiterLines } from './rate-limiter-text.js';

export interface TextOptions {
  /** Time since the snapshot was taken (caller's clock): TTLs and deadlines count down by it. */
  readonly elapsedMs?: number;
  /** Rows listed per table (queue, readers, permits) before "... and N more". */
  readonly maxRows?: number;
  /** Colour for the key, holders, errors and warnings (default none). */
  readonly paint?: Paint;
  /** The terminal's width: queue and reader tables shorten their waiter/reader column to fit it (none when piped). */
  readonly width?: number | undefined;
}

const LABEL = 10;
const row = (label: string, text: string): string => `  ${label.padEnd(LABEL)}${text}`;
/** A table after its row label: the room it has, and its `who` column the one to give up width (cut in the middle, keeping the thread). */
const tableLayout = (width: number | undefined, who: number): TableOptions => ({
  width: width === undefined ? undefined : width - 2 - LABEL,
  columns: Array.from({ length: who + 1 }, (_, c) => (c === who ? { min: 16, cut: 'middle' as const } : undefined)),
});
const cont = (text: string): string => `  ${''.padEnd(LABEL)}${text}`;

const KIND_TEXT: Record<LockView['kind'], string> = {
  reentrant: 'Redisson lock',
  fair: 'Redisson fair lock',
  rw: 'Redisson read-write lock',
  fenced: 'Redisson fenced lock',
  'multi-lock': 'Redisson group multi-lock',
  'rate-limiter': 'Redisson rate limiter',
  semaphore: 'Redisson semaphore',
  'expirable-semaphore': 'Redisson permit-expirable semaphore',
  latch: 'Redisson count-down latch',
  token: 'token lock',
  'rs-semaphore': 'redis-semaphore semaphore',
  'not-a-lock': 'not a lock',
  missing: 'does not exist',
};

/** What LockView.size counts for each Redis type (HLEN, STRLEN, LLEN, SCARD, ZCARD, XLEN). */
const SIZE_UNIT: Readonly<Record<string, string>> = { hash: 'fields', string: 'bytes', list: 'items', set: 'members', zset: 'members', stream: 'entries' };

const SEVERITY_TEXT: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'note' };

/** "in 4.2 s" / "overdue 1.1 s" for a deadline relative to now. */
export function relative(ms: number): string {
  return ms > 0 ? `in ${formatDuration(ms)}` : `overdue ${formatDuration(-ms)}`;
}

/** `<client> thread <t>` for Redisson-style owners, the escaped token otherwise. */
export function describeHolder(h: Pick<HolderView, 'owner' | 'client' | 'thread'>): string {
  return h.client !== undefined && h.thread !== undefined ? `${h.client} thread ${printable(h.thread)}` : printable(h.owner);
}

const holds = (n: number): string => (n === 1 ? '1 hold' : `${n} holds`);

function clipped<T>(items: readonly T[], max: number): { shown: readonly T[]; more: string[] } {
  if (items.length <= max) return { shown: items, more: [] };
  return { shown: items.slice(0, max), more: [cont(`... and ${items.length - max} more (--json lists all)`)] };
}

function header(view: LockView, ttl: (ms: number) => number, paint: Paint): string {
  const key = view.keyHex !== undefined ? `"${view.key}"` : printable(view.key);
  let what = KIND_TEXT[view.kind];
  if (view.kind === 'token') what += ` (${view.library === 'unknown' || !view.library ? 'unknown format' : view.library})`;
  if (view.kind === 'rw' && view.mode) what += `, ${view.mode} mode`;
  if (view.kind === 'reentrant' && view.possibleKinds?.includes('fair')) what += ' (reentrant or fair: no queue to tell)';
  if (view.kind === 'not-a-lock') what += `: a ${view.type}${view.size !== undefined ? ` of ${view.size} ${SIZE_UNIT[view.type] ?? 'entries'}` : ''}`;
  if (view.ttlMs >= 0) what += `, expires ${relative(ttl(view.ttlMs))}`;
  else if (view.ttlMs === -1) what += ', no TTL';
  return `${paint.key(key)}  ${what}`;
}

function holderLines(view: LockView, paint: Paint): string[] {
  if (view.kind === 'token') return [row('held by', paint.holder(printable(view.value ?? ''))), ...tokenFactLines(view), ...tokenExtras(view)];
  if (view.kind === 'multi-lock' && view.holders.length === 0) return [row('holder', 'free (every lease lapsed)')];
  if (view.kind === 'multi-lock') return view.holders.map((h) => row('holder', `${paint.holder(describeHolder(h))}, ${h.count === 1 ? '1 value' : `${h.count} values`}`));
  const holders = view.kind === 'rw' ? view.holders.filter((h) => h.write) : view.holders;
  const label = view.kind === 'rw' ? 'writer' : 'holder';
  if (holders.length === 0) return view.kind === 'rw' ? [] : [row(label, 'free')];
  return holders.map((h) => row(label, `${paint.holder(describeHolder(h))}, ${holds(h.count)}`));
}

/** What the token's library stores beside the id: Spring's registry, ShedLock's host and time. */
function tokenFactLines(view: LockView): string[] {
  const facts = view.tokenFacts;
  if (!facts) return [];
  const lines: string[] = [];
  if (facts.registryKey !== undefined) lines.push(row('registry', `${printable(facts.registryKey)}, lock ${printable(facts.lockKey ?? '')}`));
  if (facts.host !== undefined) lines.push(row('host', printable(facts.host)));
  if (facts.lockedAt !== undefined) {
    const ago = view.readAt - facts.lockedAt;
    lines.push(row('locked at', `${new Date(facts.lockedAt).toISOString()} (${ago >= 0 ? `${formatDuration(ago)} ago` : `${formatDuration(-ago)} ahead of the server clock`})`));
  }
  if (facts.id !== undefined && facts.id !== view.value) lines.push(row('id', printable(facts.id)));
  return lines;
}

/** What some token libraries store beside the token: bsm/redislock's metadata, ObtainMulti's other keys. */
function tokenExtras(view: LockView): string[] {
  const lines: string[] = [];
  if (view.metadata !== undefined) lines.push(row('metadata', printable(view.metadata)));
  if (view.keys) lines.push(row('keys', `${view.keys.map(printable).join(', ')} (one lock, obtained together)`));
  return lines;
}

/** The fair queue's column headings: the one-shot table and the live view's both print them. */
export const QUEUE_COLUMNS = ['#', 'waiter', 'deadline', 'expected wait', 'listening'] as const;

/** Whether a waiter listens on its own wake-up channel: `?` where the snapshot could not tell. */
export const listeningText = (q: Pick<QueueEntryView, 'subscribers'>): string =>
  q.subscribers === undefined ? '?' : q.subscribers > 0 ? 'yes' : 'no';

function queueLines(queue: readonly QueueEntryView[], ttl: (ms: number) => number, max: number, width: number | undefined): string[] {
  if (queue.length === 0) return [row('queue', 'empty')];
  const { shown, more } = clipped(queue, max);
  const rows = [
    [...QUEUE_COLUMNS],
    ...shown.map((q) => [
      String(q.position + 1),
      describeHolder(parseOwner(q.owner)),
      q.deadlineInMs === null ? 'none' : relative(ttl(q.deadlineInMs)),
      q.expectedWaitMs === undefined ? '?' : formatDuration(Math.max(0, ttl(q.expectedWaitMs))),
      listeningText(q),
    ]),
  ];
  const lines = formatColumns(rows, tableLayout(width, 1));
  return [row('queue', lines[0]!), ...lines.slice(1).map(cont), ...more];
}

/** Fair queue entries carry only the raw owner: split `<uuid>:<thread>` for display. */
function parseOwner(owner: string): Pick<HolderView, 'owner' | 'client' | 'thread'> {
  const match = /^([0-9a-fA-F-]{36}):(.+)$/.exec(owner);
  return match ? { owner, client: match[1], thread: match[2] } : { owner };
}

function readerLines(readers: readonly ReaderView[], ttl: (ms: number) => number, max: number, width: number | undefined): string[] {
  if (readers.length === 0) return [];
  const { shown, more } = clipped(readers, max);
  const rows = [
    ['reader', 'holds', 'hold timeouts'],
    ...shown.map((r) => [
      describeHolder(r),
      String(r.count),
      r.zombie ? 'none left (zombie)' : r.timeoutKeys.map((k) => (k.ttlMs >= 0 ? formatDuration(ttl(k.ttlMs)) : 'no TTL')).join(', '),
    ]),
  ];
  const lines = formatColumns(rows, tableLayout(width, 0));
  return [row('readers', lines[0]!), ...lines.slice(1).map(cont), ...more];
}

/** A group multi-lock's values: the stored hash, who holds it, re-entries, its own lease left. */
function multiLockLines(values: readonly MultiLockValueView[], ttl: (ms: number) => number, max: number, width: number | undefined): string[] {
  const { shown, more } = clipped(values, max);
  const lease = (ms: number | null): string => (ms === null ? 'none' : ttl(ms) > 0 ? formatDuration(ttl(ms)) : `lapsed ${formatDuration(-ttl(ms))} ago`);
  const rows = [['value (hashed)', 'holder', 'holds', 'lease left'], ...shown.map((v) => [printable(v.value), describeHolder(parseOwner(v.owner)), String(v.count), lease(v.leaseLeftMs)])];
  const lines = formatColumns(rows, tableLayout(width, 1));
  return [row('values', lines[0]!), ...lines.slice(1).map(cont), ...more];
}

function permitLines(view: LockView, ttl: (ms: number) => number, max: number): string[] {
  const lines: string[] = [];
  if (view.available !== undefined) lines.push(row('permits', `${view.available} available${view.permits ? `, ${view.permits.length} taken` : ''}`));
  if (view.kind === 'rs-semaphore') lines.push(row('permits', `${view.permits?.length ?? 0} taken`));
  const { shown, more } = clipped(view.permits ?? [], max);
  for (const p of shown) {
    const state = p.expiresInMs === null ? 'never expires' : p.expired ? `expired ${formatDuration(-p.expiresInMs)} ago` : `expires ${relative(ttl(p.expiresInMs))}`;
    lines.push(cont(`${printable(p.id)}  ${state}`));
  }
  return [...lines, ...more];
}

/** Kinds with no per-holder identity to list (permits are listed instead). */
const UNOWNED: ReadonlySet<LockView['kind']> = new Set(['rate-limiter', 'semaphore', 'expirable-semaphore', 'latch', 'rs-semaphore', 'missing', 'not-a-lock']);
const CHANNEL_KINDS: ReadonlySet<LockView['kind']> = new Set(['reentrant', 'fenced', 'multi-lock', 'fair', 'rw', 'semaphore', 'expirable-semaphore', 'latch']);

/** The text block for one key: a header line, then indented rows. */
export function formatLockView(view: LockView, opts: TextOptions = {}): string[] {
  const elapsed = opts.elapsedMs ?? 0;
  const max = opts.maxRows ?? 100;
  const ttl = (ms: number): number => ms - elapsed;
  const paint = opts.paint ?? PLAIN;
  const lines = [header(view, ttl, paint)];
  if (!UNOWNED.has(view.kind)) lines.push(...holderLines(view, paint));
  if (view.kind === 'fenced') lines.push(row('fencing', view.token === undefined ? 'no token handed out yet' : `last token ${view.token}`));
  if (view.multiLockValues) lines.push(...multiLockLines(view.multiLockValues, ttl, max, opts.width));
  if (view.rateLimiter) lines.push(...rateLimiterLines(view.rateLimiter, max, elapsed).map((l) => (l.label === '' ? cont(l.text) : row(l.label, l.text))));
  if (view.queue) lines.push(...queueLines(view.queue, ttl, max, opts.width));
  if (view.readers) lines.push(...readerLines(view.readers, ttl, max, opts.width));
  if (view.count !== undefined) lines.push(row('count', String(view.count)));
  lines.push(...permitLines(view, ttl, max));
  if (CHANNEL_KINDS.has(view.kind) || view.waiters > 0) lines.push(row('waiters', `${view.waiters} subscribed to its channel${view.kind === 'fair' ? 's' : ''}`));
  if (view.replicas) {
    const text = view.replicas.map(replicaText).join(', ');
    lines.push(row('replicas', text));
  }
  const tone = { error: paint.error, warning: paint.warning, info: (text: string) => text } as const;
  for (const w of view.warnings) lines.push(tone[w.severity](row(SEVERITY_TEXT[w.severity], escapeControls(w.message))));
  return lines;
}

/** What a replica holds of the key: read there when inspect could, else its replication lag. */
function replicaText(r: ReplicaView): string {
  if (r.hasKey === true) return `${r.replica} has it (${r.ttlMs !== undefined && r.ttlMs >= 0 ? `TTL ${formatDuration(r.ttlMs)}` : 'no TTL'})`;
  if (r.hasKey === false) return `${r.replica} does not have it`;
  if (r.hasKey === null) return `${r.replica} not read (${r.error ?? 'unreachable'})`;
  return `${r.replica} ${r.lagBytes === 0 ? 'in sync' : `${r.lagBytes} bytes behind`}`;
}

/**
 * One line for stderr when any view was read with plain commands (the user may not run EVAL):
 * such a snapshot is not atomic, and keys that kept changing between reads are named.
 */
export function readConsistencyNote(views: readonly LockView[]): string | undefined {
  if (!views.some((v) => v.readConsistency !== undefined)) return undefined;
  const changed = views.filter((v) => v.readConsistency === 'changed-during-read').map((v) => v.key);
  const base = 'read with plain commands, as the Redis user may not run EVAL: each key is several reads, not one atomic snapshot';
  return changed.length > 0 ? `${base}; changed while being read (parts may disagree): ${changed.join(', ')}` : base;
}
