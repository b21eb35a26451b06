import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './build.js';

/** The built CLI as a real process (piped stdio, no TTY), as a user or a script runs it. */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Exit code, or 128 + signal number when a signal ended it (shell convention). */
  readonly exited: Promise<number>;
  out(): string;
  err(): string;
  /** Resolves once stdout + stderr match; rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

const SIGNAL_NUMBER: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

const started: ChildProcess[] = [];

/**
 * Starts `node bin/redlock-cli.js ...args`. `boundMs` is the test's own bound: a run still going
 * after it is SIGKILLed (by pid) and reports exit 137, so a hang fails the test instead of the suite.
 */
export function spawnCli(args: readonly string[], env: Record<string, string | undefined>, boundMs = 60_000): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, NO_COLOR: '1' } });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const bound = setTimeout(() => child.kill('SIGKILL'), boundMs);
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(bound);
      resolve(code ?? 128 + (signal ? (SIGNAL_NUMBER[signal] ?? 0) : 0));
    }),
  );
  return {
    child,
    pid: child.pid!,
    exited,
    out: () => stdout,
    err: () => stderr,
    async waitFor(pattern, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(stdout + stderr)) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}:\n${stdout}${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/** SIGKILLs (by pid) every CLI process this file started that is still running. */
export function killStartedClis(): void {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
