import { printable } from '../core/decode/escape.js';
import { InterruptedError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { sleep } from '../core/sleep.js';
import type { HoldEvent, HoldMode, ReleaseReason } from '../core/hold-events.js';
import type { OpenLockEnv } from '../locks/env.js';
import { protocolFor } from '../locks/registry.js';
import type { LockRequest, LockSetup, ReleaseOutcome } from '../locks/types.js';
import { startWatchdog, untilExpired, type WatchdogEnd } from '../locks/watchdog.js';
import { watchConnection } from '../redis/watch-connection.js';
import { exitCodeOf, spawnErrorText, startChild, type ChildExit, type HeldChild, type UnaskedStop } from './child.js';
import { commandEnv } from './child-env.js';

/** What `hold` was asked to do, parsed and validated. */
export interface HoldPlan {
  readonly setup: LockSetup;
  readonly mode: HoldMode;
  readonly forMs?: number | undefined;
  readonly killGraceMs: number;
  /** The command to run under the lock; empty: just hold. */
  readonly command: readonly string[];
}

/**
 * Where the hold reports what happens, in order: the command maps these to its output (lines,
 * NDJSON, the live view) and to the owner memory.
 */
export interface HoldEvents {
  emit(event: HoldEvent): void;
  /** The command's output, passed through as it comes. */
  childOutput(stream: 'stdout' | 'stderr', text: string): void;
  /** Report who holds the lock while we wait (costs a read per refusal; only a live view shows it). */
  readonly showsWaiting?: boolean | undefined;
}

/** The caller's signal (Ctrl-C, SIGTERM: stop the command, release, exit 130) and the command's environment. */
export interface HoldRun {
  readonly signal?: AbortSignal | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The exit code, and a message to print once the live view is gone (it owns the terminal until then). */
export interface HoldResult {
  readonly exitCode: number;
  readonly message?: string | undefined;
  /** Redis stopped answering: closing politely (QUIT) would only wait for it. */
  readonly unresponsive?: boolean | undefined;
}

/** Shell convention for "command not found / not executable". */
export const EXIT_CANNOT_RUN = 127;
// A release that cannot reach Redis must not keep us from exiting: the lease ends it anyway.
export const RELEASE_TIMEOUT_MS = 3000;

type Ending =
  | { readonly kind: 'watchdog'; readonly end: WatchdogEnd }
  | { readonly kind: 'child'; readonly exit: ChildExit }
  | { readonly kind: 'interrupted' }
  | { readonly kind: 'for-elapsed' };

const never = new Promise<never>(() => {});

/** Resolves on abort; `cancel` removes the listener (a REPL's signal outlives many holds). */
function onAbort(signal: AbortSignal | undefined): { promise: Promise<void>; cancel: () => void } {
  if (!signal) return { promise: never, cancel: () => {} };
  let listener = (): void => {};
  const promise = new Promise<void>((resolve) => {
    listener = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', listener, { once: true });
  });
  return { promise, cancel: () => signal.removeEventListener('abort', listener) };
}

/** A timer to race against; cancel() clears it (settling it early, which the finished race ignores). */
function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  const cancelled = new AbortController();
  return { promise: sleep(ms, cancelled.signal), cancel: () => cancelled.abort() };
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  const timer = delay(ms);
  try {
    return await Promise.race([promise, timer.promise.then(() => 'timeout' as const)]);
  } finally {
    timer.cancel();
  }
}

/** How `hold` names a stop of the command it did not ask for. */
const UNASKED_STOP_TEXT: Record<UnaskedStop, string> = {
  deadline: 'its lease is running out unconfirmed',
  leftovers: 'left running by the command that exited',
  'guard-died': 'its guard process died',
};

const escapedHolder = (h: { readonly owner: string; readonly count: number }) => ({ owner: printable(h.owner), count: h.count });

/** Acquires, keeps the lock (watchdog or fixed lease), runs the command, and releases in order. */
export async function runHold(ctx: HoldRun, env: OpenLockEnv, plan: HoldPlan, out: HoldEvents): Promise<HoldResult> {
  const { setup } = plan;
  const protocol = protocolFor(setup.kind);
  const req: LockRequest = { key: setup.key, owner: setup.owner, leaseMs: setup.leaseMs, values: setup.values };
  if (ctx.signal?.aborted) throw new InterruptedError();

  out.emit({ type: 'acquiring', at: Date.now(), waitMs: setup.waitMs });
  // Without waiting, the lease started no earlier than this send. After a wait the last attempt's
  // send time is unknown; the watchdog renews long before that matters, and a fixed lease is
  // re-timed from the server's PTTL at the first ownership check.
  const sentAt = Date.now();
  const attempt =
    setup.waitMs > 0
      ? await protocol.acquire(env, req, {
          waitMs: setup.waitMs,
          signal: ctx.signal,
          onRefused: out.showsWaiting ? (seen) => out.emit({ type: 'waiting', at: Date.now(), ...seen, holders: seen.holders.map(escapedHolder) }) : undefined,
        })
      : await protocol.tryAcquire(env, req);
  if (!attempt.acquired) {
    out.emit({ type: 'not-acquired', at: Date.now(), ttlMs: attempt.ttlMs, holders: attempt.holders });
    return { exitCode: ExitCode.notAcquired };
  }
  const acquiredAt = Date.now();
  const leaseStartedAt = setup.waitMs > 0 ? acquiredAt : sentAt;
  const renewEveryMs = plan.mode === 'watchdog' ? Math.floor(setup.leaseMs / 3) : undefined;
  out.emit({ type: 'acquired', at: acquiredAt, mode: plan.mode, leaseMs: setup.leaseMs, renewEveryMs, count: attempt.count, token: attempt.token });

  // The lease as last confirmed: the command's guard stops it if this passes without news from us
  // (we are stopped or hung), SIGTERM a little before (at most a third of the lease) and SIGKILL at it.
  let leaseEndsAt = leaseStartedAt + setup.leaseMs;
  let child: HeldChild | undefined;
  const dog = startWatchdog({
    env, protocol, req, mode: plan.mode, leaseStartedAt,
    onEvent: (event) => {
      if (event.type === 'renewed') {
        leaseEndsAt = event.at + event.ttlMs;
        child?.keepUntil(leaseEndsAt);
      }
      out.emit(event);
    },
  });
  const conns = env.nodes.length > 0 ? env.nodes : [env.conn];
  const unwatch = conns.map((conn) => watchConnection(conn, out.emit));
  const forTimer = plan.forMs !== undefined ? delay(plan.forMs) : undefined;
  const aborted = onAbort(ctx.signal);
  let releaseProblem: string | undefined;
  try {
    if (plan.command.length > 0) {
      const [command, ...args] = plan.command as [string, ...string[]];
      try {
        child = await startChild({
          command,
          args,
          env: commandEnv(ctx.env, { key: setup.key, kind: setup.kind, owner: setup.owner, token: attempt.token }),
          killGraceMs: plan.killGraceMs,
          leaseEndsAt: () => leaseEndsAt,
          termLeadMs: Math.min(plan.killGraceMs, Math.floor(setup.leaseMs / 3)),
          onOutput: out.childOutput,
          onUnaskedStop: (pid, signal, why) => out.emit({ type: 'child-stopping', at: Date.now(), pid, signal, why: UNASKED_STOP_TEXT[why] }),
        });
      } catch (err) {
        await release('child-failed-to-start');
        const message = `cannot run "${command}": ${spawnErrorText(err)}`;
        return { exitCode: EXIT_CANNOT_RUN, message: [message, releaseProblem].filter(Boolean).join('\n') };
      }
      child.keepUntil(leaseEndsAt); // renewals that landed while it was starting
      out.emit({ type: 'child-started', at: Date.now(), pid: child.pid, command: plan.command });
    }

    const ending: Ending = await Promise.race([
      dog.ended.then((end): Ending => ({ kind: 'watchdog', end })),
      child ? child.exited.then((exit): Ending => ({ kind: 'child', exit })) : never,
      aborted.promise.then((): Ending => ({ kind: 'interrupted' })),
      forTimer ? forTimer.promise.then((): Ending => ({ kind: 'for-elapsed' })) : never,
    ]);
    const result = await finish(ending);
    if (!releaseProblem) return result;
    return { exitCode: ending.kind === 'interrupted' ? result.exitCode : ExitCode.unreachable, message: releaseProblem, unresponsive: true };
  } finally {
    forTimer?.cancel();
    aborted.cancel();
    dog.stop();
    for (const stop of unwatch) stop();
  }

  async function finish(ending: Ending): Promise<HoldResult> {
    switch (ending.kind) {
      case 'watchdog': {
        const { end } = ending;
        if (end.type === 'expired' && !child) {
          await within(untilExpired(env, req), RELEASE_TIMEOUT_MS).catch(() => undefined);
          const at = Date.now();
          out.emit({ type: 'expired', at, heldMs: at - acquiredAt });
          return { exitCode: ExitCode.ok };
        }
        // Lost, or a fixed lease ran out under a running command: the command is no longer
        // protected, so stop it. Nothing to release: Redis no longer has our lock.
        out.emit({
          type: 'lost',
          at: end.at,
          reason: end.type === 'lost' ? end.reason : 'lease-ran-out',
          holders: end.type === 'lost' ? end.holders : undefined,
        });
        await stopChild('lock lost');
        // A watchdog lease that ran out means no renewal got an answer: Redis is away.
        return { exitCode: ExitCode.notAcquired, unresponsive: end.type === 'lost' && end.reason === 'lease-ran-out' };
      }
      case 'child': {
        const { exit } = ending;
        if (exit.cause === 'deadline') {
          // We did not confirm the lease in time (stopped, hung) and the guard stopped the command
          // before it ran out: the same end as a lease running out under the command.
          out.emit({ type: 'lost', at: Date.now(), reason: 'lease-ran-out' });
          out.emit({ type: 'child-exited', at: Date.now(), pid: child!.pid, code: exit.code, signal: exit.signal });
          return { exitCode: ExitCode.notAcquired };
        }
        out.emit({ type: 'child-exited', at: Date.now(), pid: child!.pid, code: exit.code, signal: exit.signal });
        const outcome = await release('child-exited');
        if (exit.cause === 'guard-died') {
          // Its group is stopped (the lock was kept until then), but how the command ended is unknown.
          const message = `the guard process of pid ${child!.pid} died: stopped the command's process group, then released the lock`;
          return { exitCode: ExitCode.unexpected, message };
        }
        // The lock vanished between the last check and the end: the command's tail ran unprotected.
        return { exitCode: outcome === 'not-owner' ? ExitCode.notAcquired : exitCodeOf(ending.exit) };
      }
      case 'interrupted':
        await stopChild('interrupted');
        await release('interrupted');
        return { exitCode: ExitCode.interrupted };
      case 'for-elapsed': {
        await stopChild('--for elapsed');
        const outcome = await release('for-elapsed');
        return { exitCode: outcome === 'not-owner' ? ExitCode.notAcquired : ExitCode.ok };
      }
    }
  }

  /** Stops the command before anything else: the lock must outlive the work it protects. */
  async function stopChild(why: string): Promise<void> {
    if (!child) return;
    const pid = child.pid;
    const exit = await child.stop(plan.killGraceMs, (signal) => out.emit({ type: 'child-stopping', at: Date.now(), pid, signal, why }));
    out.emit({ type: 'child-exited', at: Date.now(), pid, code: exit.code, signal: exit.signal });
  }

  async function release(reason: ReleaseReason): Promise<ReleaseOutcome | 'failed'> {
    dog.stop(); // no renewal may land after the release
    const problem = (why: string) => `could not release "${setup.key}": ${why}; its lease will free it`;
    try {
      const outcome = await within(protocol.release(env, req), RELEASE_TIMEOUT_MS);
      if (outcome === 'timeout') {
        releaseProblem = problem(`Redis did not answer within ${RELEASE_TIMEOUT_MS / 1000} s`);
        return 'failed';
      }
      out.emit({ type: 'released', at: Date.now(), reason, outcome, heldMs: Date.now() - acquiredAt });
      return outcome;
    } catch (err) {
      releaseProblem = problem(err instanceof Error ? err.message : String(err));
      return 'failed';
    }
  }
}
