import type { Companion } from '../core/decode/companions.js';
import { bytesToText } from '../core/decode/escape.js';
import { INSPECT_KINDS, type InspectKind, type LockView } from '../core/lock-view.js';
import type { Connection } from '../redis/connection.js';
import { keyFate } from './scan-filter.js';
import { reportUnread, scanBatches, unreadReason, type UnreadNode } from './scan.js';
import { inspectKeys, type InspectKey } from './snapshot.js';

// ls and doctor: every lock in a keyspace. Per SCAN step one script (the SCAN itself, then each
// key's type and short value) and one pipeline of full snapshots for the keys that can be locks;
// companions and Redisson's unlock latches are set aside by name and type, so each lock is
// listed once.

/** The kinds ls lists by default: everything the decoder recognises as a lock. */
export const LOCK_KINDS: ReadonlySet<InspectKind> = new Set(INSPECT_KINDS.filter((k) => k !== 'not-a-lock' && k !== 'missing'));

/** A lock found, and where: doctor prints fixes against the node that holds it. */
export interface FoundLock {
  readonly view: LockView;
  /** host:port of the primary it was scanned on. */
  readonly node: string;
  /** The raw name, when it is not valid UTF-8 (view.key is then an escaped form). */
  readonly bytes?: Buffer | undefined;
}

export interface FoundCompanion {
  readonly key: string;
  readonly bytes?: Buffer | undefined;
  readonly node: string;
  readonly companion: Companion;
}

export interface ScanProgress {
  readonly scanned: number;
  readonly found: number;
  readonly node: string;
}

export interface LockScanOptions {
  readonly pattern: string;
  readonly count?: number | undefined;
  /** Views of these kinds are kept (default LOCK_KINDS); `not-a-lock` turns on full reads of everything. */
  readonly kinds?: ReadonlySet<InspectKind> | undefined;
  /**
   * Not-a-lock keys worth a full view anyway (doctor: lock-like names holding other data), asked
   * by name before the key is read, and again with its view once read.
   */
  readonly keepNotALock?: ((key: string, view?: LockView) => boolean) | undefined;
  readonly limit?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onCompanion?: ((c: FoundCompanion) => void) | undefined;
  readonly onProgress?: ((p: ScanProgress) => void) | undefined;
  /** A Cluster primary could not be read (ls and doctor then exit 9); without it the scan fails. */
  readonly onUnread?: ((node: UnreadNode) => void) | undefined;
}

/** What one scan saw: the views ls prints and --watch shows. */
export interface LockScan {
  readonly views: readonly LockView[];
  /** Keys SCAN returned, on every primary. */
  readonly scanned: number;
  /** --limit was reached: there may be more locks than listed. */
  readonly limited: boolean;
}

/** A scanned name as text; Buffer.toString is far cheaper than a fatal decoder on a million keys. */
function nameOf(raw: Buffer): { text: string; bytes?: Buffer | undefined } {
  const text = raw.toString('utf8');
  if (!text.includes('\ufffd')) return { text };
  const shown = bytesToText(raw);
  return shown.hex === undefined ? { text: shown.text } : { text: shown.text, bytes: raw };
}

/** Lock batches as the keyspace is walked; stops after `limit` locks. */
export async function* scanLocks(conn: Connection, opts: LockScanOptions): AsyncGenerator<FoundLock[]> {
  const kinds = opts.kinds ?? LOCK_KINDS;
  const everything = kinds.has('not-a-lock');
  const keep = (view: LockView): boolean => kinds.has(view.kind) || (view.kind === 'not-a-lock' && opts.keepNotALock?.(view.key, view) === true);
  const seen = new Set<string>();
  let scanned = 0;
  const unread = new Set<string>();
  const onUnread = (n: UnreadNode): void => {
    if (unread.has(n.node)) return;
    unread.add(n.node);
    reportUnread(opts, n, undefined);
  };
  for await (const batch of scanBatches(conn, { ...opts, onUnread: opts.onUnread ? onUnread : undefined })) {
    const node = batch.source.label;
    if (unread.has(node)) continue;
    const nowMs = Date.now();
    const wanted: { key: InspectKey; bytes?: Buffer | undefined }[] = [];
    batch.keys.forEach((raw, i) => {
      const { text, bytes } = nameOf(raw);
      const fate = keyFate(text, batch.probes[i]!, nowMs);
      if (fate.fate === 'companion') opts.onCompanion?.({ key: text, bytes, node, companion: fate.companion });
      const full = fate.fate === 'inspect' || (fate.fate === 'not-a-lock' && (everything || opts.keepNotALock?.(text) === true));
      if (full && !seen.has(text)) wanted.push({ key: bytes ?? text, bytes });
    });
    let views: LockView[] = [];
    try {
      views = wanted.length > 0 ? await inspectKeys(conn, wanted.map((w) => w.key)) : [];
    } catch (err) {
      const reason = batch.source.slots !== undefined && opts.onUnread ? unreadReason(err, node) : undefined;
      if (reason === undefined) throw err;
      onUnread({ node, slots: batch.source.slots!, reason });
      continue;
    }
    const found: FoundLock[] = [];
    views.forEach((view, i) => {
      if (!keep(view) || seen.has(view.key) || seen.size >= (opts.limit ?? Infinity)) return;
      seen.add(view.key);
      found.push({ view, node, bytes: wanted[i]!.bytes });
    });
    scanned += batch.keys.length;
    opts.onProgress?.({ scanned, found: seen.size, node });
    if (found.length > 0) yield found;
    if (opts.limit !== undefined && seen.size >= opts.limit) return;
  }
}

/** The whole scan at once (ls's table and --watch ticks). */
export async function collectLocks(conn: Connection, opts: LockScanOptions): Promise<LockScan & { readonly found: readonly FoundLock[] }> {
  const found: FoundLock[] = [];
  let scanned = 0;
  let limited = false;
  for await (const batch of scanLocks(conn, { ...opts, onProgress: (p) => ((scanned = p.scanned), opts.onProgress?.(p)) })) {
    found.push(...batch);
    if (opts.limit !== undefined && found.length >= opts.limit) limited = true;
  }
  return { views: found.map((f) => f.view), found, scanned, limited };
}
