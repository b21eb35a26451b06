// ShedLock's Redis providers (docs/lock-formats.md, "ShedLock"): a string at
// `<keyPrefix>:<environment>:<lock name>` (`job-lock:default:<name>` unless configured) holding
// `ADDED:<instant>@<host>` (5.x - 6.6) or `ADDED:<instant>@<host>:<uuid>` (6.7 on), with a PX
// expiry of lockAtMostFor. When the job ends before lockAtLeastFor, the key is kept until then
// (its expiry moved, or before 6.7 its value rewritten): a key here does not mean a job runs.

import { formatDuration } from '../duration.js';
import type { LockWarning, TokenFacts } from '../lock-view.js';
import { warn } from './warnings.js';

const VALUE = /^ADDED:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)@(.+?)(?::([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}))?$/;

/** Whether a value has ShedLock's form. */
export const isShedLockValue = (value: string): boolean => VALUE.test(value);

/** The instant, host and (6.7+) unique id a ShedLock value carries. */
export function parseShedLockValue(value: string): { lockedAt: number; host: string; id?: string } | undefined {
  const match = VALUE.exec(value);
  if (!match) return undefined;
  const lockedAt = Date.parse(match[1]!);
  if (!Number.isFinite(lockedAt)) return undefined;
  return { lockedAt, host: match[2]!, ...(match[3] !== undefined ? { id: match[3] } : {}) };
}

/** What inspect shows of a ShedLock lock, and what is normal for it. */
export function shedLockFacts(_key: string, value: string, warnings: LockWarning[], nowMs: number): TokenFacts {
  const parsed = parseShedLockValue(value);
  if (!parsed) return {};
  const age = nowMs - parsed.lockedAt;
  warnings.push(
    warn(
      'shedlock-lock',
      'info',
      `ShedLock lock taken by ${parsed.host} ${age >= 0 ? `${formatDuration(age)} ago` : 'at a time ahead of the server clock'}: it expires at lockAtMostFor, and a job that ends sooner keeps it until lockAtLeastFor, so the key outliving its job is normal; a run that finds it held is skipped, not queued`,
    ),
  );
  if (parsed.id === undefined) {
    warnings.push(
      warn(
        'shedlock-no-unique-id',
        'info',
        'written by ShedLock before 6.7 (no unique id in the value): its unlock deletes the key, or rewrites it with SET XX before lockAtLeastFor, without checking who holds it',
      ),
    );
  }
  return { host: parsed.host, lockedAt: parsed.lockedAt, ...(parsed.id !== undefined ? { id: parsed.id } : {}) };
}
