// The process between `hold` and the command it runs under the lock. If `hold` dies without
// stopping the command (SIGKILL, OOM killer, a crash), nothing renews the lock any more, so the
// command must not go on as if it still held it: the IPC channel to `hold` is the lifeline, and
// its end (the kernel closes it with the process) makes this guard stop the command at once.
// Usage: node guard.js <grace ms> <command> [args...]; stdio 0-2 go to the command.

import { spawn } from 'node:child_process';

/** What the guard tells `hold` over IPC. */
export type GuardMessage =
  | { readonly type: 'spawned'; readonly pid: number }
  | { readonly type: 'spawn-error'; readonly code: string | undefined; readonly message: string }
  | { readonly type: 'exited'; readonly code: number | null; readonly signal: NodeJS.Signals | null };

/** What `hold` tells the guard: signal the command's process group. */
export interface GuardRequest {
  readonly signal: 'SIGTERM' | 'SIGKILL';
}

function main(): void {
  const [graceText, command, ...args] = process.argv.slice(2);
  const graceMs = Number(graceText);
  if (command === undefined || !process.send) {
    process.stderr.write('hold-guard: started without a command or an IPC channel to hold\n');
    process.exit(2);
  }
  const send = (msg: GuardMessage): void => void (process.connected ? process.send?.(msg) : undefined);
  // The guard must outlive the command to reap it and report how it ended: a stray SIGTERM for
  // the guard itself is ignored (hold asks over IPC).
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, () => undefined);
  const env = { ...process.env };
  delete env.NODE_CHANNEL_FD; // the lifeline is ours: the command gets no IPC channel
  delete env.NODE_CHANNEL_SERIALIZATION_MODE;
  // Its own process group, so stopping it stops everything it started (a shell and its children).
  const child = spawn(command, args, { stdio: 'inherit', env, detached: true });
  const group = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // ESRCH: nothing left in the group
    }
  };
  child.once('error', (err: NodeJS.ErrnoException) => {
    send({ type: 'spawn-error', code: err.code, message: err.message });
    process.disconnect();
    process.exitCode = 127;
  });
  child.once('spawn', () => send({ type: 'spawned', pid: child.pid! }));
  child.once('exit', (code, signal) => {
    send({ type: 'exited', code, signal });
    if (process.connected) process.disconnect();
  });
  process.on('message', (req: GuardRequest) => group(req.signal));
  process.once('disconnect', () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // `hold` is gone: stop the command now, as losing the lock would have.
    group('SIGTERM');
    setTimeout(() => group('SIGKILL'), Number.isFinite(graceMs) ? graceMs : 3000).unref();
  });
}

main();
