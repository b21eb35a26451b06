import type { FixTarget } from '../core/doctor-fix.js';
import { noExpiryByDesignNote } from '../core/doctor-no-expiry.js';
import { companionFindings, LOCK_LIKE_NAME, sortFindings, tokenWithoutExpiryNote, viewFindings, type CompanionFact, type DoctorOptions, type Finding } from '../core/doctor.js';
import { namedClients, parseReplicationInfo, renewalFindings, replicaFindings, type RenewalSample } from '../core/doctor-server.js';
import { readConsistencyNote } from '../core/inspect-text.js';
import type { LockView } from '../core/lock-view.js';
import { scanLocks, type FoundCompanion, type FoundLock, type ScanProgress } from './scan-locks.js';
import { scanSources, unreadReason, type ScanSource, type UnreadNode } from './scan.js';
import { inspectKeys, type InspectKey } from './snapshot.js';
import { companionOf } from '../core/decode/companions.js';
import { leakedCounterFinding } from '../core/doctor-fencing.js';
import { leakedCounters } from './fencing-leaks.js';
import { sleep } from '../core/sleep.js';
import type { Connection } from '../redis/connection.js';

// Gathers what doctor's pure checks need: every lock (and lock-like name holding other data, and
// string that could be a token lock set without expiry) from one scan, the locks behind companion
// keys the scan met without their lock, INFO replication of every primary, and with --renewals a
// second look plus CLIENT LIST. Read-only: SCAN inside a probe script, snapshot scripts, INFO and
// CLIENT LIST.

export interface DoctorRequest extends DoctorOptions {
  readonly pattern: string;
  readonly scanCount?: number | undefined;
  /** Watch Redisson-held locks this long for renewals; undefined: skip that check. */
  readonly renewalWindowMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((p: ScanProgress) => void) | undefined;
  /** The printed fix commands' connection arguments for one node. */
  readonly targetFor: (node: string, binaryKeys: ReadonlyMap<string, Uint8Array>) => FixTarget;
}

export interface DoctorReport {
  readonly findings: readonly Finding[];
  readonly locks: number;
  readonly scanned: number;
  /** Cluster primaries that could not be read: their locks were not checked. */
  readonly unread: readonly UnreadNode[];
  readonly notes: readonly string[];
}

/** Inspects lock names in groups, so a keyspace full of orphans still goes in bounded pipelines. */
async function inspectInGroups(conn: Connection, names: readonly InspectKey[]): Promise<LockView[]> {
  const views: LockView[] = [];
  for (let i = 0; i < names.length; i += 1000) views.push(...(await inspectKeys(conn, names.slice(i, i + 1000))));
  return views;
}

/**
 * The lock's name as Redis knows it: a companion whose name is not UTF-8 is parsed through
 * latin1 (one char per byte), so the lock's bytes come out exact.
 */
function lockKeyOf(c: FoundCompanion): InspectKey {
  if (!c.bytes) return c.companion.lock;
  return Buffer.from(companionOf(c.bytes.toString('latin1'))?.lock ?? c.companion.lock, 'latin1');
}

/** The lock behind each companion: already scanned, or read now. */
export async function companionFacts(conn: Connection, companions: readonly FoundCompanion[], byKey: ReadonlyMap<string, LockView>): Promise<CompanionFact[]> {
  const unread = new Map<string, InspectKey>();
  for (const c of companions) if (!byKey.has(c.companion.lock)) unread.set(c.companion.lock, lockKeyOf(c));
  const names = [...unread.keys()];
  const views = await inspectInGroups(conn, [...unread.values()]);
  const read = new Map(names.map((name, i) => [name, views[i]!]));
  return companions.map((c) => ({ key: c.key, node: c.node, companion: c.companion, lock: byKey.get(c.companion.lock) ?? read.get(c.companion.lock)! }));
}

async function replication(source: ScanSource): Promise<string> {
  return (await source.client.info('replication')) as string;
}

/** Redisson-held locks read again after the window; CLIENT LIST of every primary for connection names. */
async function renewals(conn: Connection, locks: readonly FoundLock[], windowMs: number, signal: AbortSignal | undefined) {
  const held = locks.filter((f) => f.view.ttlMs > 0 && [...f.view.holders, ...(f.view.readers ?? [])].some((h) => h.client));
  if (held.length === 0) return { samples: [], clientList: '' };
  await sleep(windowMs, signal);
  const after = await inspectInGroups(conn, held.map((f) => f.bytes ?? f.view.key));
  const lists = await Promise.all(scanSources(conn).map((s) => (s.client.client('LIST') as Promise<string>).catch(() => '')));
  const clientList = lists.join('\n'); // an unread primary is already reported; its clients stay unnamed
  const samples: RenewalSample[] = [];
  held.forEach((f, i) => {
    const now = after[i]!;
    const holder = [...now.holders, ...(now.readers ?? [])].find((h) => h.client);
    // Only the same holders: a new holder's fresh TTL is an acquisition, not a renewal.
    const same = holder && f.view.holders.concat(f.view.readers ?? []).some((h) => h.owner === holder.owner);
    if (!holder?.client || !same || now.ttlMs < 0) return;
    const kind = now.kind === 'rw' ? (now.mode === 'write' ? 'write' : 'read') : now.kind;
    // Both reads carry the server's clock: a lock read early in a long scan waited longer.
    const elapsedMs = now.readAt - f.view.readAt;
    samples.push({ key: f.view.key, node: f.node, kind, client: holder.client, ttlBeforeMs: f.view.ttlMs, ttlAfterMs: now.ttlMs, elapsedMs });
  });
  return { samples, clientList };
}

/** Scans, reads what the checks need, and runs every check. */
export async function runDoctor(conn: Connection, req: DoctorRequest): Promise<DoctorReport> {
  const locks: FoundLock[] = [];
  const companions: FoundCompanion[] = [];
  let scanned = 0;
  const unread: UnreadNode[] = [];
  const isUnread = (node: string): boolean => unread.some((n) => n.node === node);
  const scan = scanLocks(conn, {
    onUnread: (n) => void unread.push(n),
    pattern: req.pattern,
    count: req.scanCount,
    signal: req.signal,
    keepNotALock: (key, view) => LOCK_LIKE_NAME.test(key) || view?.warnings.some((w) => w.code === 'token-without-expiry') === true,
    onCompanion: (c) => companions.push(c),
    onProgress: (p) => ((scanned = p.scanned), req.onProgress?.(p)),
  });
  for await (const batch of scan) locks.push(...batch);

  const binary = new Map(locks.filter((f) => f.bytes).map((f) => [f.view.key, new Uint8Array(f.bytes!)]));
  for (const c of companions) if (c.bytes) binary.set(c.key, new Uint8Array(c.bytes));
  const targetOf = (node: string): FixTarget => req.targetFor(node, binary);

  const findings: Finding[] = [];
  const notes: string[] = [];
  const quiet: LockView[] = []; // keys with no finding: the note on token-shaped strings names only these
  for (const f of locks) {
    const found = viewFindings(f.view, f.node, targetOf(f.node), req);
    findings.push(...found);
    if (found.length === 0) quiet.push(f.view);
  }
  const tokenNote = tokenWithoutExpiryNote(quiet);
  if (tokenNote) notes.push(tokenNote);
  const noExpiryNote = noExpiryByDesignNote(quiet);
  if (noExpiryNote) notes.push(noExpiryNote);
  const readNote = readConsistencyNote(locks.map((f) => f.view));
  if (readNote) notes.push(readNote);
  const byKey = new Map(locks.map((f) => [f.view.key, f.view]));
  const facts = await companionFacts(conn, companions.filter((c) => !isUnread(c.node)), byKey);
  // A lock seen only through its companions (a free fair lock with a queue) is checked too.
  for (const fact of facts) {
    if (byKey.has(fact.lock.key)) continue;
    byKey.set(fact.lock.key, fact.lock);
    findings.push(...viewFindings(fact.lock, fact.node, targetOf(fact.node), req));
  }
  findings.push(...companionFindings(facts, targetOf));
  for (const leak of await leakedCounters(conn, facts, (key) => binary.get(key))) {
    const finding = leakedCounterFinding(leak, targetOf(leak.node));
    if (finding) findings.push(finding);
  }

  for (const source of scanSources(conn).filter((s) => !isUnread(s.label))) {
    const info = await replication(source).catch((err: unknown) => {
      const reason = source.slots !== undefined ? unreadReason(err, source.label) : undefined;
      if (reason === undefined) throw err;
      unread.push({ node: source.label, slots: source.slots!, reason });
      return undefined;
    });
    if (info !== undefined) findings.push(...replicaFindings(parseReplicationInfo(source.label, info), targetOf(source.label)));
  }
  if (req.renewalWindowMs !== undefined) {
    const { samples, clientList } = await renewals(conn, locks, req.renewalWindowMs, req.signal);
    const result = renewalFindings(samples, namedClients(clientList), targetOf);
    findings.push(...result.findings);
    if (result.note) notes.push(result.note);
  }
  const lockCount = locks.filter((f) => f.view.kind !== 'not-a-lock').length;
  return { findings: sortFindings(findings), locks: lockCount, scanned, notes, unread };
}
