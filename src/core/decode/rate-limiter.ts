// Redisson's RRateLimiter (docs/lock-formats.md, "Redisson's newer objects"): a config hash
// {rate, interval ms, type 0 OVERALL / 1 PER_CLIENT, keepAliveTime ms}, and per state a
// `:value` string (permits left as last written) and a `:permits` zset of grants scored by
// their epoch ms. A grant's permits are the member's last four bytes (a little-endian uint32,
// after 16 random bytes since 3.17, a float before). Nothing is held, so nothing is freed: a
// grant's permits count again once the interval has passed, at the next acquisition.

import type { LockWarning, RateGrantView, RateLimiterStateView, RateLimiterView } from '../lock-view.js';
import type { KindFields } from './fields.js';
import type { RawLimiterState, RawSnapshot } from './raw.js';
import { warn } from './warnings.js';

const FIELDS = new Set(['rate', 'interval', 'type', 'keepAliveTime']);
const INTEGER = /^\d+$/;

/** A hash with rate, interval and type (and keepAliveTime since 3.42), every one an integer. */
export function isRateLimiterBody(body: readonly string[]): boolean {
  const seen = new Set<string>();
  for (let i = 0; i + 1 < body.length; i += 2) {
    if (!FIELDS.has(body[i]!) || !INTEGER.test(body[i + 1]!)) return false;
    seen.add(body[i]!);
  }
  return seen.has('rate') && seen.has('interval') && seen.has('type');
}

const field = (body: readonly string[], name: string): number => {
  for (let i = 0; i + 1 < body.length; i += 2) if (body[i] === name) return Number(body[i + 1]);
  return 0;
};

/** Permits of one grant: the member's last four bytes, as Lua's struct packs an `I`. */
export function grantPermits(hexMember: string): number {
  if (hexMember.length < 8) return 0;
  return Buffer.from(hexMember.slice(-8), 'hex').readUInt32LE(0);
}

interface Tally {
  readonly live: RateGrantView[];
  readonly liveSum: number;
  readonly returnable: number;
}

function tally(state: RawLimiterState, intervalMs: number, nowMs: number): Tally {
  const live: RateGrantView[] = [];
  let liveSum = 0;
  let returnable = 0;
  for (let i = 0; i + 1 < state.grants.length; i += 2) {
    const permits = grantPermits(state.grants[i]!);
    const at = Number(state.grants[i + 1]);
    // tryAcquire returns grants scored at or before now - interval.
    if (at <= nowMs - intervalMs) returnable += permits;
    else {
      liveSum += permits;
      live.push({ permits, agoMs: nowMs - at, returnsInMs: at + intervalMs - nowMs });
    }
  }
  return { live, liveSum, returnable };
}

/** What tryAcquire would find: the grants past the interval come back, never above the rate. */
function availableNow(stored: number | null, rate: number, t: Tally): number {
  if (stored === null) return rate;
  if (t.returnable === 0) return stored;
  return stored + t.returnable > rate ? rate - t.liveSum : stored + t.returnable;
}

function stateView(state: RawLimiterState, rate: number, intervalMs: number, nowMs: number): RateLimiterStateView {
  const stored = state.value !== undefined && /^-?\d+$/.test(state.value) ? Number(state.value) : null;
  const t = tally(state, intervalMs, nowMs);
  return {
    client: state.client === '' ? null : state.client,
    stored,
    availableNow: availableNow(stored, rate, t),
    grants: t.live,
    returnablePermits: t.returnable,
    grantCount: state.grantCount,
    valueTtlMs: state.valueTtl,
    permitsTtlMs: state.grantsTtl,
  };
}

const whose = (s: RateLimiterStateView): string => (s.client === null ? '' : `client ${s.client}: `);

/**
 * A state's stuck and over-rate cases. Permits left plus every grant's permits is the rate while
 * Redisson alone writes the keys; less means permits that no grant will ever return.
 */
function stateWarnings(s: RateLimiterStateView, rate: number, everyGrantRead: boolean, warnings: LockWarning[]): void {
  const granted = s.grants.reduce((sum, g) => sum + g.permits, 0);
  const lost = s.stored === null || !everyGrantRead ? 0 : rate - s.stored - granted - s.returnablePermits;
  if (lost > 0) {
    warnings.push(
      warn('rate-limiter-permits-lost', 'error', `${whose(s)}${lost} of ${rate} permits can never come back: ${s.stored} left, and no grant in its permits zset returns the rest; Redisson's tryAcquire stays short of them (and fails with a Lua error once too few are left and no grant remains)`),
    );
  }
  if (granted > rate) {
    warnings.push(
      warn('rate-limiter-over-rate', 'warning', `${whose(s)}${granted} permits handed out within one interval, over the rate of ${rate}: release() gave permits back, or the value key was lost while its grants stayed`),
    );
  }
}

/** The config hash read with each state: rate, interval, type, permits left and handed out. */
export function decodeRateLimiter(raw: RawSnapshot, warnings: LockWarning[]): KindFields {
  const rate = field(raw.body, 'rate');
  const intervalMs = field(raw.body, 'interval');
  const type = field(raw.body, 'type') === 1 ? 'per-client' : 'overall';
  const keepAliveMs = field(raw.body, 'keepAliveTime');
  // OVERALL keeps the shared pair; PER_CLIENT one pair per client (a shared pair would be left from an earlier type).
  const rows = raw.limiter.filter((r) => (type === 'overall' ? r.client === '' : r.client !== ''));
  const states = rows.map((r) => stateView(r, rate, intervalMs, raw.nowMs));
  const limiter: RateLimiterView = { rate, intervalMs, type, keepAliveMs, states };
  states.forEach((s, i) => stateWarnings(s, rate, rows[i]!.grants.length / 2 === rows[i]!.grantCount, warnings));
  if (keepAliveMs > 0 && raw.pttl === -1) {
    warnings.push(warn('rate-limiter-keepalive-without-ttl', 'warning', `keepAliveTime is ${keepAliveMs} ms but the config hash has no TTL: something removed it (PERSIST), so this limiter will never expire`));
  } else if (raw.pttl === -1) {
    warnings.push(warn('rate-limiter-no-ttl', 'info', 'no TTL: normal for a rate limiter set without keepAliveTime; Redisson keeps its keys until they are deleted'));
  }
  const idle = states.filter((s) => s.client !== null && s.grants.length === 0 && s.valueTtlMs === -1).length;
  if (idle > 0) {
    warnings.push(warn('rate-limiter-idle-clients', 'info', `${idle} client state(s) with no grant in the current interval and no TTL: Redisson never deletes a client's pair, so clients that are gone leave theirs (keepAliveTime would expire them)`));
  }
  return { holders: [], rateLimiter: limiter, waiters: 0 };
}
