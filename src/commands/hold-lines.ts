import { formatDuration } from '../core/duration.js';
import { safeText } from '../core/terminal-text.js';
import { formatCommand, RELEASE_REASON_TEXT, type HoldEvent, type HoldMode, type LostReason } from '../core/hold-events.js';
import { describeRefusal, formatHolders } from './lock-output.js';

/** What every line is about. */
export interface HoldLineContext {
  readonly key: string;
  readonly kind: string;
  readonly owner: string;
  readonly mode: HoldMode;
}

// Events that only make sense on screen: a renewal in flight lasts a millisecond, and the
// command's output is forwarded as it is rather than wrapped in lines.
// 'waiting' repeats every attempt: the live view shows it; a pipe gets nothing extra while waiting.
const SILENT: ReadonlySet<HoldEvent['type']> = new Set(['renewing', 'child-output', 'waiting']);

/** `hh:mm:ss.mmm`, local time: event lines are read next to other logs of the same machine. */
function clock(at: number): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}


function lostText(ctx: HoldLineContext, e: Extract<HoldEvent, { type: 'lost' }>): string {
  const now = e.holders === undefined ? '' : e.holders.length === 0 ? '; nobody holds it now' : `; it is held by ${formatHolders(e.holders)} now`;
  const why: Record<LostReason, string> = {
    'renewal-refused': 'a renewal found it no longer ours',
    gone: 'it was deleted or taken over (force-unlocked?)',
    'lease-ran-out':
      ctx.mode === 'fixed'
        ? 'its fixed lease ran out while the command was still running'
        : 'no renewal reached Redis before the lease ran out',
  };
  return `lost "${ctx.key}": ${why[e.reason]}${now}`;
}

/** One plain line per event (without the time), or undefined for events that print nothing. */
export function describeHoldEvent(ctx: HoldLineContext, e: HoldEvent): string | undefined {
  const { key, kind, owner } = ctx;
  switch (e.type) {
    case 'acquiring':
      return `acquiring "${safeText(key)}" (${kind}) as ${safeText(owner)}${e.waitMs > 0 ? `, waiting up to ${formatDuration(e.waitMs)}` : ''}`;
    case 'acquired': {
      const lease =
        e.mode === 'watchdog'
          ? `watchdog lease ${formatDuration(e.leaseMs)}, renewed every ${formatDuration(e.renewEveryMs ?? e.leaseMs / 3)}`
          : `lease ${formatDuration(e.leaseMs)}, not renewed`;
      const extra = [e.count > 1 ? `hold count ${e.count}` : '', e.token !== undefined ? `token ${e.token}` : ''].filter(Boolean);
      return `acquired "${safeText(key)}" (${kind}) as ${safeText(owner)}: ${lease}${extra.length ? `, ${extra.join(', ')}` : ''}`;
    }
    case 'not-acquired':
      return describeRefusal(key, { acquired: false, ttlMs: e.ttlMs, holders: e.holders });
    case 'renewed':
      return `renewed "${safeText(key)}": lease ${formatDuration(e.ttlMs)} from now (renewal ${e.renewals})`;
    case 'retrying':
      return `could not reach "${safeText(key)}": ${e.error}; retrying in ${formatDuration(e.retryInMs)}`;
    case 'reconnecting':
      return `connection to ${e.target} lost: reconnecting`;
    case 'reconnected':
      return `reconnected to ${e.target}`;
    case 'lost':
      return lostText(ctx, e);
    case 'expired':
      return `lease expired: "${safeText(key)}" was held for ${formatDuration(e.heldMs)} and is free again`;
    case 'child-started':
      return `started pid ${e.pid}: ${formatCommand(e.command)}`;
    case 'child-stopping':
      return `stopping pid ${e.pid} with ${e.signal}: ${e.why}`;
    case 'child-exited':
      return e.code !== null ? `pid ${e.pid} exited with code ${e.code}` : `pid ${e.pid} was killed by ${e.signal ?? 'a signal'}`;
    case 'released':
      if (e.outcome === 'not-owner') return `"${safeText(key)}" was no longer ours when releasing (${RELEASE_REASON_TEXT[e.reason]})`;
      return `${e.outcome === 'decremented' ? 'released one hold of' : 'released'} "${safeText(key)}" after ${formatDuration(e.heldMs)} (${RELEASE_REASON_TEXT[e.reason]})`;
    default:
      return undefined;
  }
}

/** A plain event line with its time, or undefined. */
export function holdLine(ctx: HoldLineContext, e: HoldEvent): string | undefined {
  if (SILENT.has(e.type)) return undefined;
  const text = describeHoldEvent(ctx, e);
  return text === undefined ? undefined : `${clock(e.at)} ${text}`;
}

/** The NDJSON form: `{"event": ..., "at": ISO time, "key": ..., ...fields}`, or undefined. */
export function holdJson(ctx: HoldLineContext, e: HoldEvent): Record<string, unknown> | undefined {
  if (SILENT.has(e.type)) return undefined;
  const { type, at, ...fields } = e;
  const who = type === 'acquiring' || type === 'acquired' || type === 'not-acquired' ? { kind: ctx.kind, owner: ctx.owner } : {};
  return { event: type, at: new Date(at).toISOString(), key: ctx.key, ...who, ...fields };
}
