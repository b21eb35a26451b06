// The process between `hold` and the command it runs under the lock. The command must never run
// without the lock, whatever happens to `hold`:
// - `hold` dies (SIGKILL, OOM killer, a crash): the IPC channel to it is the lifeline, and its end
//   (the kernel closes it with the process) makes this guard stop the command at once;
// - `hold` is stopped (Ctrl-Z, SIGSTOP) or hangs: it can no longer renew, and it can no longer tell
//   us the lock is lost either, so the guard keeps its own deadline, which `hold` moves on after
//   each renewal: SIGTERM a little before the lease ends, SIGKILL when it ends;
// - the command exits but left background jobs in its group: they are stopped before the exit is
//   reported, since `hold` releases the lock on that report.
// Usage: node guard.js <grace ms> <command> [args...]; stdio 0-2 go to the command, which starts
// once `hold` has answered our 'ready' with the first deadline (a fresh one: node's start-up can
// take longer than a short lease's renewal period on a busy machine).

import { spawn } from 'node:child_process';
import { signalGroup, stopGroup } from './process-group.js';

/** Why the guard itself signals the command's group. */
export type GuardStopReason = 'deadline' | 'leftovers';

/** What the guard tells `hold` over IPC. */
export type GuardMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'spawned'; readonly pid: number }
  | { readonly type: 'spawn-error'; readonly code: string | undefined; readonly message: string }
  | { readonly type: 'stopping'; readonly signal: 'SIGTERM' | 'SIGKILL'; readonly why: GuardStopReason }
  | {
      readonly type: 'exited';
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      /** The guard's deadline passed first: `hold` had not confirmed the lease in time. */
      readonly deadlinePassed: boolean;
    };

/** What `hold` tells the guard: signal the command's group, or the lease as last confirmed. */
export type GuardRequest =
  | { readonly type: 'signal'; readonly signal: 'SIGTERM' | 'SIGKILL' }
  | { readonly type: 'deadline'; readonly termAt: number; readonly killAt: number };

// How long after `hold`'s own SIGKILL was due the guard sends it instead.
const BACKSTOP_MARGIN_MS = 1000;
// setTimeout's longest delay; a later deadline (a fixed lease of weeks) is re-armed in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `fn` at epoch ms `at` (by the wall clock `hold` counts leases with); returns a canceller. */
function atTime(at: number, fn: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const left = at - Date.now();
    timer = left > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(fn, Math.max(0, left));
  };
  arm();
  return () => clearTimeout(timer);
}

function main(): void {
  const [graceText, command, ...args] = process.argv.slice(2);
  const graceMs = Number.isFinite(Number(graceText)) ? Number(graceText) : 3000;
  if (command === undefined || !process.send) {
    process.stderr.write('hold-guard: started without a command or an IPC channel to hold\n');
    process.exit(2);
  }
  const send = (msg: GuardMessage): void => void (process.connected ? process.send?.(msg) : undefined);
  // The guard must outlive the command to reap it and report how it ended: a stray SIGTERM for
  // the guard itself is ignored (hold asks over IPC).
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, () => undefined);
  process.once('message', (first: GuardRequest) => {
    if (first.type !== 'deadline') process.exit(2);
    supervise(command, args, graceMs, send, first);
  });
  send({ type: 'ready' });
}

function supervise(
  command: string,
  args: readonly string[],
  graceMs: number,
  send: (msg: GuardMessage) => void,
  first: Extract<GuardRequest, { type: 'deadline' }>,
): void {
  const env = { ...process.env };
  delete env.NODE_CHANNEL_FD; // the lifeline is ours: the command gets no IPC channel
  delete env.NODE_CHANNEL_SERIALIZATION_MODE;
  // Its own process group, so stopping it stops everything it started (a shell and its children).
  const child = spawn(command, args, { stdio: 'inherit', env, detached: true });
  const pgid = (): number | undefined => child.pid;
  const group = (signal: NodeJS.Signals): void => void (pgid() !== undefined && signalGroup(pgid()!, signal));

  let deadlinePassed = false;
  let cancelDeadline = (): void => {};
  const onDeadline = (signal: 'SIGTERM' | 'SIGKILL') => (): void => {
    deadlinePassed = true;
    send({ type: 'stopping', signal, why: 'deadline' });
    group(signal);
  };
  const setDeadline = (termAt: number, killAt: number): void => {
    if (deadlinePassed) return; // the stop is under way: a late renewal cannot take a SIGTERM back
    cancelDeadline();
    const cancels = [atTime(termAt, onDeadline('SIGTERM')), atTime(killAt, onDeadline('SIGKILL'))];
    cancelDeadline = () => cancels.forEach((cancel) => cancel());
  };
  setDeadline(first.termAt, first.killAt);

  child.once('error', (err: NodeJS.ErrnoException) => {
    cancelDeadline();
    send({ type: 'spawn-error', code: err.code, message: err.message });
    process.disconnect();
    process.exitCode = 127;
  });
  child.once('spawn', () => send({ type: 'spawned', pid: child.pid! }));
  child.once('exit', (code, signal) => {
    // Background jobs it left in its group must not outlive the lock `hold` releases on our report.
    void stopGroup(child.pid!, graceMs, (s) => send({ type: 'stopping', signal: s, why: 'leftovers' })).then(() => {
      cancelDeadline();
      send({ type: 'exited', code, signal, deadlinePassed });
      if (process.connected) process.disconnect();
    });
  });
  process.on('message', (req: GuardRequest) => {
    if (req.type === 'deadline') return setDeadline(req.termAt, req.killAt);
    group(req.signal);
    if (req.signal === 'SIGTERM' && !deadlinePassed) {
      // `hold` is stopping the command itself and sends SIGKILL after the grace; the deadline
      // only backs that up now, in case `hold` is stopped or hangs in the middle of it.
      cancelDeadline();
      cancelDeadline = atTime(Date.now() + graceMs + BACKSTOP_MARGIN_MS, onDeadline('SIGKILL'));
    }
  });
  process.once('disconnect', () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    // `hold` is gone: stop the command now, as losing the lock would have.
    void stopGroup(child.pid, graceMs);
  });
}

main();
