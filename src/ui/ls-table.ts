import { formatDuration } from '../core/duration.js';
import type { HolderView, LockView } from '../core/lock-view.js';
import { printable } from '../core/decode/escape.js';
import { formatColumns } from '../core/text-layout.js';
import { PLAIN, type Paint } from '../core/paint.js';

// The `ls` table: one row per lock, the columns a person scans for "who holds what, until when,
// and who waits". Shared by the one-shot table and the --watch dashboard (no ink here, so the
// one-shot path can use it without loading the UI framework).

export interface LsRow {
  readonly key: string;
  readonly kind: string;
  readonly holder: string;
  readonly ttl: string;
  readonly waiting: string;
  readonly warnings: string;
}

export const LS_HEADER: LsRow = { key: 'KEY', kind: 'KIND', holder: 'HOLDER', ttl: 'TTL', waiting: 'WAITING', warnings: 'WARN' };

/** `<uuid>:<thread>` is 38+ characters: the first UUID group identifies the client well enough here. */
function shortOwner(h: HolderView): string {
  const who = h.client && h.thread ? `${h.client.slice(0, 8)}…:${h.thread}` : printable(h.owner);
  return h.count > 1 ? `${who} ×${h.count}` : who;
}

function holdersText(holders: readonly HolderView[]): string {
  if (holders.length === 0) return '-';
  const first = shortOwner(holders[0]!);
  return holders.length > 1 ? `${first} +${holders.length - 1}` : first;
}

/** The HOLDER cell: who holds it, or for counters what they count. */
export function holderCell(v: LockView): string {
  switch (v.kind) {
    case 'rw': {
      const writer = v.holders.find((h) => h.write);
      const readers = v.readers?.length ?? 0;
      if (writer) return `${shortOwner(writer)} (w)${readers > 0 ? ` +${readers} r` : ''}`;
      return readers === 1 ? `${holdersText(v.readers!)} (r)` : `${readers} readers`;
    }
    case 'token': {
      // Tokens are random: their first characters tell them apart as well as all 32 do.
      const value = printable(v.value ?? '?');
      const short = [...value].length > 12 ? `${[...value].slice(0, 8).join('')}…` : value;
      return `${short}${v.library && v.library !== 'unknown' ? ` (${v.library})` : ''}`;
    }
    case 'semaphore':
      return `${v.available ?? '?'} free`;
    case 'expirable-semaphore':
      return `${v.available ?? '?'} free, ${v.permits?.length ?? 0} taken`;
    case 'latch':
      return `count ${v.count ?? '?'}`;
    case 'rate-limiter': {
      const r = v.rateLimiter;
      if (!r) return '-';
      if (r.type === 'per-client') return `${r.states.length} client(s), ${r.rate} per client`;
      return `${r.states[0]?.availableNow ?? r.rate}/${r.rate} left`;
    }
    case 'not-a-lock':
      return `${v.type}${v.size !== undefined ? ` (${v.size})` : ''}`;
    default:
      return holdersText(v.holders);
  }
}

export function ttlCell(ttlMs: number): string {
  if (ttlMs === -1) return 'no TTL';
  if (ttlMs < 0) return '-';
  return formatDuration(ttlMs);
}

/** Fair locks: the queue length; every other kind: clients subscribed to its unlock channel. */
export function waitingCount(v: LockView): number {
  return v.queue ? v.queue.length : v.waiters;
}

/** One row; `elapsedMs` since the read makes TTLs count down between scans in --watch. */
export function lsRow(v: LockView, elapsedMs = 0): LsRow {
  const waiting = waitingCount(v);
  const problems = v.warnings.filter((w) => w.severity !== 'info').length;
  return {
    // A name that is not UTF-8 arrives already escaped (\xNN): quote it instead of escaping again.
    key: v.keyHex !== undefined ? `"${v.key}"` : printable(v.keys ? v.keys.join(', ') : v.key),
    kind: v.kind === 'rw' && v.mode ? `rw:${v.mode}` : v.kind,
    holder: holderCell(v),
    ttl: ttlCell(v.ttlMs < 0 ? v.ttlMs : Math.max(0, v.ttlMs - elapsedMs)),
    waiting: waiting > 0 ? `${waiting}${v.queue ? ' queued' : ''}` : '-',
    warnings: problems > 0 ? String(problems) : '-',
  };
}

const COLUMNS = ['key', 'kind', 'holder', 'ttl', 'waiting', 'warnings'] as const;
/** KEY and HOLDER give up width, the wider one first, but never below these; a key loses its middle. */
const LAYOUT = [{ min: 12, cut: 'middle' }, undefined, { min: 14, cut: 'end' }] as const;

/**
 * Lines of the table. With `width` (a terminal), KEY and HOLDER shrink so every line fits;
 * without it (a pipe) nothing is cut, so grep and awk see whole names.
 */
export function formatTable(rows: readonly LsRow[], width?: number, paint: Paint = PLAIN): string[] {
  // Cells are escaped already (lsRow): colour goes around them, and width is measured without it.
  const coloured = rows.map((r) => ({ ...r, key: paint.key(r.key), holder: r.holder === '-' ? r.holder : paint.holder(r.holder), warnings: r.warnings === '-' ? '-' : paint.warning(r.warnings) }));
  return formatColumns([LS_HEADER, ...coloured].map((r) => COLUMNS.map((c) => r[c])), { width, columns: LAYOUT });
}

export type LsSort = 'key' | 'ttl' | 'waiting';

/** A TTL that never runs out sorts as the longest: those are the locks that never free. */
const ttlRank = (v: LockView): number => (v.ttlMs === -1 ? Number.POSITIVE_INFINITY : v.ttlMs);

/** key: A to Z; ttl and waiting: largest first (what will block longest, where most wait). */
export function sortViews(views: readonly LockView[], by: LsSort): LockView[] {
  const byKey = (a: LockView, b: LockView): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const rank = by === 'ttl' ? ttlRank : by === 'waiting' ? waitingCount : undefined;
  return [...views].sort((a, b) => (rank ? rank(b) - rank(a) || byKey(a, b) : byKey(a, b)));
}
