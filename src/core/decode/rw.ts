import { formatDuration } from '../duration.js';
import type { HolderView, LockWarning, ReaderView, TimeoutKeyView } from '../lock-view.js';
import { rwTimeoutPrefix } from '../names.js';
import type { KindFields } from './fields.js';
import { sampledWarning } from './hash.js';
import { hashField, hashHolders, holdCountWarnings } from './holders.js';
import type { RawSnapshot, RawTimeoutProbe } from './raw.js';
import { warn } from './warnings.js';

/** Hash TTL and longest read hold may differ by this much before it is worth a warning. */
export const TTL_DISAGREEMENT_MS = 1000;

/** Splits one holder's existing timeout keys into counted holds (index <= count) and orphans. */
function splitProbe(key: string, probe: RawTimeoutProbe | undefined, count: number) {
  const held: TimeoutKeyView[] = [];
  const orphans: TimeoutKeyView[] = [];
  if (!probe) return { held, orphans };
  const prefix = rwTimeoutPrefix(key, probe.holder);
  for (let i = 0; i + 1 < probe.keys.length; i += 2) {
    const index = probe.keys[i]!;
    (index <= count ? held : orphans).push({ key: `${prefix}:${index}`, ttlMs: probe.keys[i + 1]! });
  }
  return { held, orphans };
}

/**
 * Redisson RReadWriteLock: `mode`, a writer field `...:write`, reader fields with counts, one
 * `rwlock_timeout:<n>` key per read hold. Orphans can only be found among the timeout keys of
 * holders named in the hash (up to a few indexes past each count): keys of holders named nowhere
 * need a SCAN, which is doctor's job.
 */
export function decodeRw(raw: RawSnapshot, warnings: LockWarning[]): KindFields {
  const mode = hashField(raw.body, 'mode') === 'write' ? 'write' : 'read';
  const holders: HolderView[] = hashHolders(raw.body);
  sampledWarning(raw, warnings);
  const probes = new Map(raw.readers.map((p) => [p.holder, p]));
  const readers: ReaderView[] = [];
  const orphanTimeoutKeys: TimeoutKeyView[] = [];
  for (const h of holders) {
    if (h.write) continue;
    const { held, orphans } = splitProbe(raw.key, probes.get(h.owner), h.count);
    probes.delete(h.owner);
    orphanTimeoutKeys.push(...orphans);
    const zombie = h.count > 0 && held.length === 0;
    readers.push({ owner: h.owner, client: h.client, thread: h.thread, count: h.count, timeoutKeys: held, zombie });
    if (zombie) {
      warnings.push(
        warn(
          'zombie-reader',
          'warning',
          `reader ${h.owner} (${h.count === 1 ? '1 hold' : `${h.count} holds`}) has no timeout keys left: it is dead but still counted, and keeps writers out${raw.pttl >= 0 ? ` until the hash expires in ${formatDuration(raw.pttl)}` : ''}`,
        ),
      );
    }
  }
  // Probes left over are writers' base names without a reader field: all their keys are orphans.
  for (const probe of probes.values()) orphanTimeoutKeys.push(...splitProbe(raw.key, probe, 0).orphans);
  for (const o of orphanTimeoutKeys) {
    warnings.push(warn('orphan-timeout-key', 'warning', `timeout key ${o.key} (${formatDuration(o.ttlMs)} left) belongs to no counted read hold`));
  }
  if (mode === 'read') ttlDisagreement(raw.pttl, readers, warnings);
  warnings.push(...holdCountWarnings(holders));
  return { holders, mode, readers, orphanTimeoutKeys, waiters: raw.channels.rw };
}

/**
 * Redisson keeps a read-mode hash alive exactly as long as its longest read hold: a hash that
 * dies first drops live readers, one that outlives them keeps writers waiting for nobody.
 */
function ttlDisagreement(hashTtl: number, readers: readonly ReaderView[], warnings: LockWarning[]): void {
  const ttls = readers.flatMap((r) => r.timeoutKeys.map((k) => k.ttlMs)).filter((t) => t >= 0);
  if (hashTtl < 0 || ttls.length === 0) return;
  const longest = Math.max(...ttls);
  if (longest - hashTtl > TTL_DISAGREEMENT_MS) {
    warnings.push(
      warn('ttl-disagreement', 'warning', `the hash expires in ${formatDuration(hashTtl)} but a read hold lasts ${formatDuration(longest)}: readers lose the lock early`),
    );
  } else if (hashTtl - longest > TTL_DISAGREEMENT_MS) {
    warnings.push(
      warn('ttl-disagreement', 'warning', `the hash lives ${formatDuration(hashTtl)} but the longest read hold ends in ${formatDuration(longest)}: writers wait for nobody`),
    );
  }
}
