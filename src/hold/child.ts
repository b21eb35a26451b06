import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { compiledPath } from '../core/compiled-path.js';
import type { GuardMessage, GuardRequest, GuardStopReason } from './guard.js';
import { signalGroup, stopGroup } from './process-group.js';

/** How the command under the lock ended: its exit code, or the signal that stopped it. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /**
   * Why it ended when neither it nor `stop()` ended it: the guard's deadline passed (the lease was
   * not confirmed in time), or the guard died and `hold` stopped the command's group itself.
   */
  readonly cause?: 'deadline' | 'guard-died' | undefined;
}

export interface HeldChild {
  readonly pid: number;
  /** Settles when the child has exited (by itself or because we stopped it). */
  readonly exited: Promise<ChildExit>;
  /** SIGTERM to the child's process group; SIGKILL if it is still alive after `graceMs`. */
  stop(graceMs: number, onSignal: (signal: 'SIGTERM' | 'SIGKILL') => void): Promise<ChildExit>;
  /** The lease as last confirmed (epoch ms): the guard stops the command if it passes unconfirmed. */
  keepUntil(leaseEndsAt: number): void;
}

/** Why the command's group was signalled by someone other than the session's stop(). */
export type UnaskedStop = GuardStopReason | 'guard-died';

/** Shell convention: the exit code, or 128 + the signal number when a signal stopped it. */
export function exitCodeOf(exit: ChildExit): number {
  if (exit.code !== null) return exit.code;
  const signo = exit.signal ? constants.signals[exit.signal] : undefined;
  return 128 + (signo ?? 0);
}

// How long to wait for the command's remaining output after it exited.
const DRAIN_MS = 500;

/** "not found" / "permission denied" rather than `spawn x ENOENT`. */
export function spawnErrorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'command not found (check the name and PATH)';
  if (code === 'EACCES') return 'permission denied (is it executable?)';
  return err instanceof Error ? err.message : String(err);
}

export interface StartChildOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How long to wait after SIGTERM before SIGKILL when the command must stop (--kill-grace). */
  readonly killGraceMs: number;
  /** When the lease runs out unless `hold` confirms it again (epoch ms), as of now. */
  readonly leaseEndsAt: () => number;
  /** How long before the lease ends the guard sends SIGTERM; SIGKILL comes when it ends. */
  readonly termLeadMs: number;
  /** Output is piped through us, so it reaches the RunContext streams (or the live view). */
  readonly onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
  /** The group is being signalled although the session did not ask: the guard's deadline, leftovers, a dead guard. */
  readonly onUnaskedStop: (pid: number, signal: 'SIGTERM' | 'SIGKILL', why: UnaskedStop) => void;
}

// The guard runs from the build (dist/hold/guard.js), also when the tests run us from src/.
const GUARD = compiledPath(import.meta.url, './guard.js', '../../dist/hold/guard.js');

/**
 * Starts the command in its own process group, so losing the lock stops everything it started
 * (a `sh -c 'a; b'` shell and its children alike), and so a Ctrl-C on the terminal reaches only
 * us: we stop the child ourselves and release the lock in order. The group is led by a guard
 * (guard.ts) that stops the command if this process dies without doing so (kill -9) or stops
 * confirming the lease (Ctrl-Z); if the guard dies instead, we stop the group ourselves before
 * the exit is reported (and the lock released). Rejects if it cannot start.
 */
export function startChild(opts: StartChildOptions): Promise<HeldChild> {
  const deadline = (leaseEndsAt: number) => ({ termAt: leaseEndsAt - opts.termLeadMs, killAt: leaseEndsAt });
  const guard = spawn(process.execPath, [GUARD, String(opts.killGraceMs), opts.command, ...opts.args], {
    env: opts.env as NodeJS.ProcessEnv,
    stdio: ['inherit', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
  for (const stream of ['stdout', 'stderr'] as const) {
    // One decoder per stream: a UTF-8 character split across two chunks must not become garbage.
    const decoder = new StringDecoder('utf8');
    guard[stream]!.on('data', (chunk: Buffer) => opts.onOutput(stream, decoder.write(chunk)));
    guard[stream]!.on('end', () => {
      const rest = decoder.end();
      if (rest !== '') opts.onOutput(stream, rest);
    });
  }
  let pid: number | undefined;
  let reported: ChildExit | undefined;
  // 'exit' can come before the last output is read; 'close' waits for the pipes, but never comes
  // while a background grandchild keeps them open, so wait for it only briefly.
  const closed = new Promise<void>((resolve) => guard.once('close', () => resolve()));
  const exited = new Promise<ChildExit>((resolve) =>
    guard.once('exit', async (code, signal) => {
      // The command's own exit as the guard saw it; if the guard died first (SIGKILL), the
      // command may run on unsupervised: stop its group before anyone releases the lock.
      const exit = reported ?? (pid !== undefined ? await stopOrphan(pid) : { code, signal });
      const drained = setTimeout(() => resolve(exit), DRAIN_MS);
      void closed.then(() => {
        clearTimeout(drained);
        resolve(exit);
      });
    }),
  );
  const stopOrphan = async (orphan: number): Promise<ChildExit> => {
    const last = await stopGroup(orphan, opts.killGraceMs, (s) => opts.onUnaskedStop(orphan, s, 'guard-died'));
    return { code: null, signal: last ?? null, cause: 'guard-died' };
  };
  let exitedYet = false;
  void exited.then(() => (exitedYet = true));

  // The guard signals the command's group (it knows whether the command is still there); once the
  // guard is gone, the exit handler above stops the group.
  const request = (req: GuardRequest): void => {
    if (guard.connected) guard.send(req);
  };
  const signalGroupNow = (signal: 'SIGTERM' | 'SIGKILL'): void => {
    if (guard.connected) request({ type: 'signal', signal });
    else if (pid !== undefined && !exitedYet) signalGroup(pid, signal);
  };

  return new Promise((resolve, reject) => {
    guard.once('error', reject); // node itself could not start
    guard.on('message', (msg: GuardMessage) => {
      if (msg.type === 'ready') request({ type: 'deadline', ...deadline(opts.leaseEndsAt()) });
      else if (msg.type === 'exited') reported = { code: msg.code, signal: msg.signal, ...(msg.deadlinePassed ? { cause: 'deadline' as const } : {}) };
      else if (msg.type === 'stopping') opts.onUnaskedStop(pid!, msg.signal, msg.why);
      else if (msg.type === 'spawn-error') reject(Object.assign(new Error(msg.message), { code: msg.code }));
      else {
        pid = msg.pid;
        guard.off('error', reject);
        guard.on('error', () => {}); // a failed kill() is not fatal: we check the exit instead
        resolve({
          pid: msg.pid,
          exited,
          keepUntil: (leaseEndsAt) => request({ type: 'deadline', ...deadline(leaseEndsAt) }),
          stop: async (graceMs, onSignal) => {
            if (exitedYet) return exited;
            onSignal('SIGTERM');
            signalGroupNow('SIGTERM');
            let timer: NodeJS.Timeout | undefined;
            const graceOver = new Promise<'grace-over'>((r) => (timer = setTimeout(() => r('grace-over'), graceMs)));
            const first = await Promise.race([exited, graceOver]);
            clearTimeout(timer);
            if (first === 'grace-over' && !exitedYet) {
              onSignal('SIGKILL');
              signalGroupNow('SIGKILL');
            }
            return exited;
          },
        });
      }
    });
  });
}
