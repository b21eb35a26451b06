import { HUGE_HOLD_COUNT } from './decode/warnings.js';
import type { LockView, QueueEntryView } from './lock-view.js';
import { fairQueueKey, fairTimeoutKey, suffixName } from './names.js';
import { keyWord, redisCli, redlockCli, type FixTarget, type Word } from './doctor-fix.js';

// The fix for each decoder warning (src/core/decode) that doctor reports, built from the view's
// facts rather than from the warning's text. Multi-step repairs are one EVAL, so a printed fix
// never leaves half a change behind when pasted.

/** A lease for locks that have none: a live holder's watchdog renews it, a dead one's runs out. */
export const FIX_LEASE_MS = 30_000;

/**
 * A key's companion name as a command word. Redisson builds these by concatenation; for a name
 * that is not UTF-8 the bytes are carried through latin1 (one char per byte), like src/inspect.
 */
export function companionWord(target: FixTarget, key: string, derive: (name: string) => string): Word {
  const bytes = target.binaryKeys?.get(key);
  if (!bytes) return derive(key);
  const name = String.fromCharCode(...bytes);
  return Uint8Array.from(derive(name), (c) => c.charCodeAt(0));
}

/** Which `--kind` our own commands use for a holder of this view. */
function lockKindOf(view: LockView, write: boolean | undefined): string {
  if (view.kind === 'rw') return write ? 'write' : 'read';
  return view.kind;
}

const REMOVE_WAITERS =
  "for _, w in ipairs(ARGV) do redis.call('lrem', KEYS[1], 0, w); redis.call('zrem', KEYS[2], w) end return #ARGV";
const DROP_UNQUEUED =
  "local q = {} for _, w in ipairs(redis.call('lrange', KEYS[1], 0, -1)) do q[w] = true end local n = 0 for _, m in ipairs(redis.call('zrange', KEYS[2], 0, -1)) do if not q[m] then n = n + redis.call('zrem', KEYS[2], m) end end return n";
// A rate limiter state short of permits: permits left set to the rate less what its grants hold
// (expired grants included: the next acquisition returns them), TTL kept. A grant's permits are
// its member's last four bytes (docs/lock-formats.md).
const RESTORE_RATE_PERMITS =
  "local rate = tonumber(redis.call('hget', KEYS[1], 'rate')) local used = 0 for _, v in ipairs(redis.call('zrange', KEYS[3], 0, -1)) do used = used + struct.unpack('<I', v, #v - 3) end local left = math.max(rate - used, 0) redis.call('set', KEYS[2], left, 'KEEPTTL') return left";
const RECLAIM_PERMITS =
  "local n = 0 for _, p in ipairs(ARGV) do n = n + redis.call('zrem', KEYS[2], p) end if n > 0 then redis.call('incrby', KEYS[1], n) end return n";

/** Removes waiters from a fair lock's queue and deadline zset in one step, as Redisson's purge does. */
export function removeWaitersFix(view: LockView, target: FixTarget, waiters: readonly QueueEntryView[]): string {
  return redisCli(
    target,
    'EVAL',
    REMOVE_WAITERS,
    '2',
    companionWord(target, view.key, fairQueueKey),
    companionWord(target, view.key, fairTimeoutKey),
    ...waiters.map((w) => w.owner),
  );
}

const hexBytes = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));

/** The fix for one decoder warning code, or undefined when doctor has none better than a look. */
export function fixFor(code: string, view: LockView, target: FixTarget): string | undefined {
  const key = keyWord(target, view.key);
  switch (code) {
    case 'no-ttl':
      return redisCli(target, 'PEXPIRE', key, String(FIX_LEASE_MS));
    case 'overdue-waiter':
      return removeWaitersFix(view, target, (view.queue ?? []).filter((w) => w.deadlineInMs !== null && w.deadlineInMs <= 0));
    case 'queue-entry-without-deadline':
      return removeWaitersFix(view, target, (view.queue ?? []).filter((w) => w.deadlineInMs === null));
    case 'deadline-without-queue-entry':
      return redisCli(target, 'EVAL', DROP_UNQUEUED, '2', companionWord(target, view.key, fairQueueKey), companionWord(target, view.key, fairTimeoutKey));
    case 'zombie-reader': {
      const zombies = (view.readers ?? []).filter((r) => r.zombie).map((r) => r.owner);
      const others = view.holders.filter((h) => !zombies.includes(h.owner));
      return others.length === 0 ? redisCli(target, 'DEL', key) : redisCli(target, 'HDEL', key, ...zombies);
    }
    case 'orphan-timeout-key':
      return redisCli(target, 'DEL', ...(view.orphanTimeoutKeys ?? []).map((k) => k.key));
    case 'ttl-disagreement': {
      const longest = Math.max(...(view.readers ?? []).flatMap((r) => r.timeoutKeys.map((k) => k.ttlMs)));
      return Number.isFinite(longest) ? redisCli(target, 'PEXPIRE', key, String(longest)) : undefined;
    }
    case 'huge-hold-count': {
      const holds = [...view.holders, ...(view.readers ?? [])].filter((h) => h.count > HUGE_HOLD_COUNT);
      const release = (h: { owner: string; write?: boolean | undefined }) =>
        redlockCli(target, 'release', key, '--kind', lockKindOf(view, h.write), '--owner', h.owner.replace(/:write$/, ''), '--all-holds');
      return holds.length > 0 ? [...new Set(holds.map(release))].join(' && ') : undefined;
    }
    case 'expired-permit': {
      // 32 hex chars are the raw 16 bytes (Redisson >= 3.17) or the member text itself (<= 3.16):
      // removing both forms is safe, the script only counts what it removed.
      const expired = (view.permits ?? []).filter((p) => p.expired).flatMap((p): Word[] => (/^[0-9a-f]{32}$/.test(p.id) ? [hexBytes(p.id), p.id] : [p.id]));
      return redisCli(target, 'EVAL', RECLAIM_PERMITS, '2', key, companionWord(target, view.key, (n) => suffixName(n, 'timeout')), ...expired);
    }
    case 'rate-limiter-permits-lost':
      return rateLimiterRestore(view, target);
    case 'rate-limiter-keepalive-without-ttl':
      return view.rateLimiter ? redisCli(target, 'PEXPIRE', key, String(view.rateLimiter.keepAliveMs)) : undefined;
    default:
      return undefined;
  }
}

/** One EVAL per state short of permits (RESTORE_RATE_PERMITS), joined: each is atomic on its own. */
function rateLimiterRestore(view: LockView, target: FixTarget): string | undefined {
  const r = view.rateLimiter;
  if (!r) return undefined;
  const states = r.states.filter((s) => s.stored !== null && s.stored + s.returnablePermits + s.grants.reduce((n, g) => n + g.permits, 0) < r.rate);
  const fixes = states.map((s) => {
    const part = (suffix: string) => companionWord(target, view.key, (n) => `${suffixName(n, suffix)}${s.client === null ? '' : `:${s.client}`}`);
    return redisCli(target, 'EVAL', RESTORE_RATE_PERMITS, '3', keyWord(target, view.key), part('value'), part('permits'));
  });
  return fixes.length > 0 ? fixes.join(' && ') : undefined;
}

/** The fallback: a closer look at the key. */
export function inspectFix(view: LockView, target: FixTarget): string {
  return redlockCli(target, 'inspect', keyWord(target, view.key));
}
