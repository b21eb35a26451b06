import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { compiledPath } from '../core/compiled-path.js';
import type { GuardMessage, GuardRequest } from './guard.js';

/** How the command under the lock ended: its exit code, or the signal that stopped it. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface HeldChild {
  readonly pid: number;
  /** Settles when the child has exited (by itself or because we stopped it). */
  readonly exited: Promise<ChildExit>;
  /** SIGTERM to the child's process group; SIGKILL if it is still alive after `graceMs`. */
  stop(graceMs: number, onSignal: (signal: 'SIGTERM' | 'SIGKILL') => void): Promise<ChildExit>;
}

export interface LockIdentity {
  readonly key: string;
  readonly kind: string;
  readonly owner: string;
  readonly token?: number | undefined;
}

/** The variables the command sees: which lock it runs under, and the fencing token to pass on. */
export function lockEnvVars(lock: LockIdentity): Record<string, string> {
  return {
    REDLOCK_KEY: lock.key,
    REDLOCK_OWNER: lock.owner,
    REDLOCK_KIND: lock.kind,
    ...(lock.token !== undefined ? { REDLOCK_TOKEN: String(lock.token) } : {}),
  };
}

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
  /** How long the guard waits after SIGTERM before SIGKILL if this process dies (--kill-grace). */
  readonly killGraceMs: number;
  /** Output is piped through us, so it reaches the RunContext streams (or the live view). */
  readonly onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
}

// The guard runs from the build (dist/hold/guard.js), also when the tests run us from src/.
const GUARD = compiledPath(import.meta.url, './guard.js', '../../dist/hold/guard.js');

/**
 * Starts the command in its own process group, so losing the lock stops everything it started
 * (a `sh -c 'a; b'` shell and its children alike), and so a Ctrl-C on the terminal reaches only
 * us: we stop the child ourselves and release the lock in order. The group is led by a guard
 * (guard.ts) that stops the command if this process dies without doing so (kill -9): the
 * command never outlives our renewals. Rejects if it cannot start.
 */
export function startChild(opts: StartChildOptions): Promise<HeldChild> {
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
  let reported: ChildExit | undefined;
  // 'exit' can come before the last output is read; 'close' waits for the pipes, but never comes
  // while a background grandchild keeps them open, so wait for it only briefly.
  const closed = new Promise<void>((resolve) => guard.once('close', () => resolve()));
  const exited = new Promise<ChildExit>((resolve) =>
    guard.once('exit', (code, signal) => {
      // The command's own exit as the guard saw it; the guard's if it died with it (SIGKILL).
      const exit = reported ?? { code, signal };
      const drained = setTimeout(() => resolve(exit), DRAIN_MS);
      void closed.then(() => {
        clearTimeout(drained);
        resolve(exit);
      });
    }),
  );
  let exitedYet = false;
  void exited.then(() => (exitedYet = true));

  // The guard signals the command's group; if the guard is gone, so is its lifeline's purpose.
  const signalGroup = (signal: 'SIGTERM' | 'SIGKILL'): void => {
    if (guard.connected) guard.send({ signal } satisfies GuardRequest);
  };

  return new Promise((resolve, reject) => {
    guard.once('error', reject); // node itself could not start
    guard.on('message', (msg: GuardMessage) => {
      if (msg.type === 'exited') reported = { code: msg.code, signal: msg.signal };
      else if (msg.type === 'spawn-error') reject(Object.assign(new Error(msg.message), { code: msg.code }));
      else {
        guard.off('error', reject);
        guard.on('error', () => {}); // a failed kill() is not fatal: we check the exit instead
        resolve({
          pid: msg.pid,
          exited,
          stop: async (graceMs, onSignal) => {
            if (exitedYet) return exited;
            onSignal('SIGTERM');
            signalGroup('SIGTERM');
            let timer: NodeJS.Timeout | undefined;
            const graceOver = new Promise<'grace-over'>((r) => (timer = setTimeout(() => r('grace-over'), graceMs)));
            const first = await Promise.race([exited, graceOver]);
            clearTimeout(timer);
            if (first === 'grace-over' && !exitedYet) {
              onSignal('SIGKILL');
              signalGroup('SIGKILL');
            }
            return exited;
          },
        });
      }
    });
  });
}
