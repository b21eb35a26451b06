// The event model of `hold`: one stream of typed events feeds the ink view, the plain event lines
// and the NDJSON stream alike, so the three can never disagree about what happened.

import type { WaitSeen } from './wait-text.js';

/** `watchdog`: renewed every lease/3 like Redisson's; `fixed`: --lease, never renewed. */
export type HoldMode = 'watchdog' | 'fixed';

/**
 * Why a held lock stopped being ours: a renewal was refused, an ownership check found it gone or
 * held by someone else (force-unlocked), or its lease ran out (fixed lease under a running
 * command, or no renewal reached Redis in time).
 */
export type LostReason = 'renewal-refused' | 'gone' | 'lease-ran-out';

/** Why we released: --for elapsed, Ctrl-C / SIGTERM, or the command under the lock finished. */
export type ReleaseReason = 'for-elapsed' | 'interrupted' | 'child-exited' | 'child-failed-to-start';

export interface HoldHolder {
  readonly owner: string;
  readonly count: number;
}

/** Every event carries `at`, epoch ms. */
export type HoldEvent =
  | { readonly type: 'acquiring'; readonly at: number; readonly waitMs: number }
  /** While waiting, after each refused attempt: for the live view only (no event line, no NDJSON). */
  | {
      readonly type: 'waiting';
      readonly at: number;
      readonly holders: readonly HoldHolder[];
      readonly ttlMs: number;
      readonly queuePosition?: number | undefined;
    }
  | {
      readonly type: 'acquired';
      readonly at: number;
      readonly mode: HoldMode;
      readonly leaseMs: number;
      /** Watchdog only: how often the lease is renewed. */
      readonly renewEveryMs?: number | undefined;
      readonly count: number;
      readonly token?: number | undefined;
    }
  | { readonly type: 'not-acquired'; readonly at: number; readonly ttlMs: number; readonly holders: readonly HoldHolder[] }
  /** A renewal is on its way to Redis (shown while it is slow; no event line). */
  | { readonly type: 'renewing'; readonly at: number }
  /** `at` is when the renewal was sent: the lease runs from then. */
  | { readonly type: 'renewed'; readonly at: number; readonly ttlMs: number; readonly renewals: number }
  | { readonly type: 'retrying'; readonly at: number; readonly error: string; readonly retryInMs: number }
  | { readonly type: 'reconnecting'; readonly at: number; readonly target: string }
  | { readonly type: 'reconnected'; readonly at: number; readonly target: string }
  | {
      readonly type: 'lost';
      readonly at: number;
      readonly reason: LostReason;
      /** Who holds it now, if anyone (from the check that found it gone). */
      readonly holders?: readonly HoldHolder[] | undefined;
    }
  /** A fixed lease ran out with no command running: the normal end of `hold --lease`. */
  | { readonly type: 'expired'; readonly at: number; readonly heldMs: number }
  | { readonly type: 'child-started'; readonly at: number; readonly pid: number; readonly command: readonly string[] }
  | { readonly type: 'child-output'; readonly at: number; readonly stream: 'stdout' | 'stderr'; readonly line: string }
  | {
      readonly type: 'child-stopping';
      readonly at: number;
      readonly pid: number;
      readonly signal: 'SIGTERM' | 'SIGKILL';
      readonly why: string;
    }
  | {
      readonly type: 'child-exited';
      readonly at: number;
      readonly pid: number;
      readonly code: number | null;
      readonly signal: string | null;
    }
  | {
      readonly type: 'released';
      readonly at: number;
      readonly reason: ReleaseReason;
      /** `decremented`: re-entrant holds of this owner remain; `not-owner`: it was gone already. */
      readonly outcome: 'released' | 'decremented' | 'not-owner';
      readonly heldMs: number;
    };

export type HoldEventType = HoldEvent['type'];

/** The states the live view names. */
export type HoldPhase = 'acquiring' | 'held' | 'renewing' | 'reconnecting' | 'lost' | 'released' | 'expired' | 'not-acquired';

export interface HoldChildState {
  readonly pid: number;
  readonly command: readonly string[];
  readonly status: 'running' | 'stopping' | 'exited';
  readonly code?: number | null | undefined;
  readonly signal?: string | null | undefined;
}

/** Everything the live view shows, folded from the event stream. */
export interface HoldState {
  readonly key: string;
  readonly kind: string;
  readonly owner: string;
  /** Password-free host:port (or node set) the lock lives on. */
  readonly target?: string | undefined;
  readonly phase: HoldPhase;
  readonly mode?: HoldMode | undefined;
  readonly leaseMs?: number | undefined;
  readonly renewEveryMs?: number | undefined;
  /** Local estimate of when the lease runs out unless renewed (epoch ms). */
  readonly expiresAt?: number | undefined;
  readonly acquiredAt?: number | undefined;
  readonly renewals: number;
  readonly lastRenewalAt?: number | undefined;
  /** When the renewal now on the wire was sent: a slow answer is worth saying. */
  readonly renewingSince?: number | undefined;
  readonly count?: number | undefined;
  readonly token?: number | undefined;
  /** The last renewal / check error while it is being retried; cleared by the next success. */
  readonly retry?: { readonly error: string; readonly at: number; readonly retryInMs: number } | undefined;
  readonly reconnectingTo?: string | undefined;
  readonly lost?: { readonly reason: LostReason; readonly holders?: readonly HoldHolder[] | undefined } | undefined;
  readonly refusedBy?: readonly HoldHolder[] | undefined;
  readonly endedAt?: number | undefined;
  readonly heldMs?: number | undefined;
  readonly releaseOutcome?: 'released' | 'decremented' | 'not-owner' | undefined;
  readonly releaseReason?: ReleaseReason | undefined;
  readonly child?: HoldChildState | undefined;
  /** When acquiring started, and what the last refused attempt saw while waiting. */
  readonly acquiringSince?: number | undefined;
  readonly waiting?: WaitSeen | undefined;
}

/** What a hold is before its first event; `mode` is what the user asked for (acquired confirms it). */
export function initialHoldState(id: { key: string; kind: string; owner: string; target?: string | undefined; mode?: HoldMode | undefined }): HoldState {
  return { ...id, phase: 'acquiring', renewals: 0 };
}

const ENDED: readonly HoldPhase[] = ['lost', 'released', 'expired', 'not-acquired'];

/** Folds one event into the view state (pure; the view keeps the result in React state). */
export function reduceHold(state: HoldState, event: HoldEvent): HoldState {
  // Once the hold has ended, only the child's last words and the final release still matter.
  const ended = ENDED.includes(state.phase);
  switch (event.type) {
    case 'acquiring':
      return { ...state, phase: 'acquiring', acquiringSince: event.at };
    case 'waiting':
      if (state.phase !== 'acquiring') return state;
      return { ...state, waiting: { holders: event.holders, ttlMs: event.ttlMs, queuePosition: event.queuePosition, seenAt: event.at } };
    case 'acquired':
      return {
        ...state,
        phase: 'held',
        mode: event.mode,
        leaseMs: event.leaseMs,
        renewEveryMs: event.renewEveryMs,
        expiresAt: event.at + event.leaseMs,
        acquiredAt: event.at,
        count: event.count,
        token: event.token,
      };
    case 'not-acquired':
      return { ...state, phase: 'not-acquired', refusedBy: event.holders, expiresAt: event.at + Math.max(0, event.ttlMs), endedAt: event.at };
    case 'renewing':
      if (ended) return state;
      return { ...state, phase: state.phase === 'reconnecting' ? 'reconnecting' : 'renewing', renewingSince: event.at };
    case 'renewed':
      if (ended) return state;
      return {
        ...state,
        phase: state.phase === 'reconnecting' ? 'reconnecting' : 'held',
        renewals: event.renewals,
        lastRenewalAt: event.at,
        renewingSince: undefined,
        expiresAt: event.at + event.ttlMs,
        retry: undefined,
      };
    case 'retrying':
      if (ended) return state;
      return {
        ...state,
        phase: state.phase === 'renewing' ? 'held' : state.phase,
        renewingSince: undefined,
        retry: { error: event.error, at: event.at, retryInMs: event.retryInMs },
      };
    case 'reconnecting':
      return ended ? state : { ...state, phase: 'reconnecting', reconnectingTo: event.target };
    case 'reconnected':
      return ended ? state : { ...state, phase: 'held', reconnectingTo: undefined, retry: undefined };
    case 'lost':
      return { ...state, phase: 'lost', lost: { reason: event.reason, holders: event.holders }, endedAt: event.at, retry: undefined };
    case 'expired':
      return { ...state, phase: 'expired', endedAt: event.at, heldMs: event.heldMs };
    case 'child-started':
      return { ...state, child: { pid: event.pid, command: event.command, status: 'running' } };
    case 'child-output':
      return state; // the view prints output lines above itself; nothing to fold
    case 'child-stopping':
      return state.child ? { ...state, child: { ...state.child, status: 'stopping' } } : state;
    case 'child-exited':
      return state.child ? { ...state, child: { ...state.child, status: 'exited', code: event.code, signal: event.signal } } : state;
    case 'released':
      // A lock already lost stays "lost": the release only confirms it was gone.
      if (state.phase === 'lost') return { ...state, releaseOutcome: event.outcome, heldMs: event.heldMs };
      return { ...state, phase: 'released', endedAt: event.at, heldMs: event.heldMs, releaseOutcome: event.outcome, releaseReason: event.reason };
  }
}

/** Why a hold was released, in words (event lines and the view say it the same way). */
export const RELEASE_REASON_TEXT: Record<ReleaseReason, string> = {
  'for-elapsed': '--for elapsed',
  interrupted: 'interrupted',
  'child-exited': 'the command finished',
  'child-failed-to-start': 'the command did not start',
};

/** A command line as a shell would read it back: plain words bare, anything else quoted. */
export function formatCommand(command: readonly string[]): string {
  return command.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/** Milliseconds of lease left at `now` (never negative), or undefined before acquisition. */
export function leaseLeft(state: HoldState, now: number): number | undefined {
  return state.expiresAt === undefined ? undefined : Math.max(0, state.expiresAt - now);
}
