import type { Finding } from './doctor.js';
import { redisCli, type FixTarget } from './doctor-fix.js';

// Leaked fencing token counters (docs/lock-formats.md, "Redisson's newer objects"): RFencedLock keeps
// `redisson_lock_token:{<name>}` without a TTL and INCRs it at every acquisition, so the counter
// outlives its lock by design: a name locked once leaves one counter for good, and a service that
// locks a new name per request leaves millions. Deleting a counter resets that name's tokens, so
// it is safe only for a name no longer in use; doctor can tell only that no lock key exists now.

/** Counters whose MEMORY USAGE doctor reads per node; beyond it the total is estimated from them. */
export const COUNTER_MEMORY_SAMPLE = 100;

const PREFIX = 'redisson_lock_token:';

/**
 * Deletes one counter only while its lock's key is absent, re-checked at the moment of deletion
 * (the lock's name is the counter's suffix, braces removed: the key Redisson derives it from).
 */
const DELETE_IF_UNLOCKED =
  `local n = string.sub(KEYS[1], ${PREFIX.length + 1}) ` +
  "if string.match(n, '^{[^{}]*}$') then n = string.sub(n, 2, -2) end " +
  "if redis.call('exists', n) == 0 then return redis.call('del', KEYS[1]) end return 0";

/** What doctor read of one node's counters without a lock. */
export interface LeakedCounters {
  readonly node: string;
  readonly count: number;
  /** MEMORY USAGE of a sample (undefined: the server refused it, e.g. ACL). */
  readonly memory?: { readonly sampled: number; readonly bytes: number } | undefined;
}

const plural = (n: number, one: string, many: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function kib(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function memoryText(leak: LeakedCounters): string {
  const m = leak.memory;
  if (m === undefined || m.sampled === 0) return 'memory not read (MEMORY USAGE was refused)';
  if (m.sampled >= leak.count) return `using ${kib(m.bytes)} (MEMORY USAGE of each)`;
  return `using about ${kib((m.bytes / m.sampled) * leak.count)} (estimated from MEMORY USAGE of a sample of ${m.sampled.toLocaleString('en-US')})`;
}

/** One finding per node with fencing counters whose lock key does not exist. */
export function leakedCounterFinding(leak: LeakedCounters, target: FixTarget): Finding | undefined {
  if (leak.count === 0) return undefined;
  const scan = redisCli(target, '--scan', '--pattern', `${PREFIX}*`);
  const del = redisCli(target, 'EVAL', DELETE_IF_UNLOCKED, '1');
  return {
    severity: 'warning',
    code: 'leaked-fencing-counter',
    key: null,
    node: leak.node,
    message: `${plural(leak.count, 'fenced-lock token counter has no lock key beside it', 'fenced-lock token counters have no lock key beside them')} (${PREFIX}{…}), ${memoryText(leak)}. Redisson never expires them. Deleting one resets its lock's fencing tokens, so it is safe only for a lock name no longer in use; doctor can tell only that none is locked now, not that none will be. For names you know are retired, this deletes each counter whose lock is still absent when it runs:`,
    fix: `${scan} | while IFS= read -r k; do ${del} "$k"; done`,
  };
}
