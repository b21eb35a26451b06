import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { BIN, ensureBuilt } from '../helpers/build.js';
import { runCli } from '../helpers/run-cli.js';

// What the bash, fish and zsh completion tests share: a throwaway home where the built
// redlock-cli is on PATH, two saved targets to complete, and the shell's script written out.
// REDIS_URL points at a closed port, to prove Tab never connects anywhere.

export const exec = promisify(execFile);

export type CompletionShell = 'bash' | 'fish' | 'zsh';

export interface CompletionHome {
  readonly dir: string;
  /** The shells' working directory: one file, job.sh, for the file-name fallback. */
  readonly work: string;
  /** The script `redlock-cli completion <shell>` printed, as a file. */
  readonly script: string;
  readonly env: NodeJS.ProcessEnv;
}

/** Builds the home; `extraEnv` adds what one shell needs (ZDOTDIR, XDG_DATA_HOME, ...). */
export async function completionHome(shell: CompletionShell, extraEnv: (dir: string) => NodeJS.ProcessEnv = () => ({})): Promise<CompletionHome> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), `redlock-cli-${shell}-`));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'redlock-cli'), `#!/bin/sh\nexec "${process.execPath}" "${resolve(BIN)}" "$@"\n`);
  chmodSync(join(bin, 'redlock-cli'), 0o755);
  const work = join(dir, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'job.sh'), '');
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    REDIS_URL: 'redis://127.0.0.1:1',
    // The suite's leak check (test/helpers/global-leaks.ts) finds processes by this variable.
    REDLOCK_CLI_TEST_RUN: process.env.REDLOCK_CLI_TEST_RUN,
    ...extraEnv(dir),
  };
  for (const [name, url] of [['prod', 'rediss://app:secret@10.0.0.5:6380'], ['staging', 'redis://10.0.0.9']]) {
    expect((await runCli(['target', 'add', name!, url!], env)).code).toBe(0);
  }
  const script = join(dir, `redlock-cli.${shell}`);
  writeFileSync(script, (await exec(process.execPath, [BIN, 'completion', shell], { env })).stdout);
  return { dir, work, script, env };
}

/**
 * PATH for a shell whose \`redlock-cli\` is a stub that only writes its arguments to \`started\` and
 * fails: a Tab that leaves \`started\` absent never started redlock-cli (nor node behind it). With
 * \`holdUntil\`, the stub then waits (at most 10 s) until that file exists and writes \`finished\`:
 * an answer seen while it waits did not wait for it.
 */
export function stubbedCli(dir: string, holdUntil?: string): { readonly env: NodeJS.ProcessEnv; readonly started: string } {
  const stub = join(dir, 'stub');
  const started = join(dir, 'stub-started');
  mkdirSync(stub, { recursive: true });
  const hold = holdUntil === undefined ? '' : `for i in $(seq 200); do [ -e '${holdUntil}' ] && break; sleep 0.05; done\necho finished >> '${started}'\n`;
  writeFileSync(join(stub, 'redlock-cli'), `#!/bin/sh\necho "$*" >> '${started}'\n${hold}exit 1\n`);
  chmodSync(join(stub, 'redlock-cli'), 0o755);
  return { env: { PATH: `${stub}:${process.env.PATH}` }, started };
}

/** The key cache's directory in this home. */
export const keyCacheDir = (env: NodeJS.ProcessEnv): string => join(env.XDG_STATE_HOME!, 'redlock-cli', 'completion');

/**
 * Dates every scan in every key cache file `agoMs` back (a minute: stale; negative: fresh for a
 * while), once no refresh runs (bounded: 20 s), so that none lands afterwards; returns now.
 */
export async function ageKeyCaches(env: NodeJS.ProcessEnv, agoMs = 60_000): Promise<number> {
  const dir = keyCacheDir(env);
  const names = (): string[] => (existsSync(dir) ? readdirSync(dir) : []);
  for (let i = 0; i < 400 && names().some((n) => n.endsWith('.refreshing')); i++) await new Promise((r) => setTimeout(r, 50));
  const now = Date.now();
  for (const f of names().filter((n) => /^keys-[0-9a-f]+\.txt$/.test(n))) {
    const text = readFileSync(join(dir, f), 'utf8');
    writeFileSync(join(dir, f), text.replace(/^(scan\t.*\t)\d+$/gm, (_, head: string) => `${head}${now - agoMs}`));
  }
  return now;
}

/** The lines a stub wrote, once it wrote at least `count` (bounded: 10 s). */
export async function stubLines(started: string, count: number): Promise<string[]> {
  const lines = (): string[] => (existsSync(started) ? readFileSync(started, 'utf8').split('\n').filter((l) => l !== '') : []);
  for (let i = 0; i < 200 && lines().length < count; i++) await new Promise((r) => setTimeout(r, 50));
  return lines();
}

/** Fails with what to install when the shell (or the part of it a test drives) is missing. */
export async function requireShell(shell: CompletionShell, probe: readonly string[], what: string = shell): Promise<void> {
  try {
    await exec(shell, probe);
  } catch (err) {
    throw new Error(`${what} is not installed (${String(err)}): this test runs the real shell on the completion script; install it (apt-get install ${shell}), as .ci/run does`);
  }
}

/** Kills a process and whatever it started (its own process group). */
export function killGroup(pid: number | undefined): void {
  try {
    if (pid !== undefined) process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export interface ShellRun {
  readonly code: number | null;
  readonly stdout: string;
  /** stdout and stderr as they arrived. */
  readonly output: string;
}

const SHELL_TIMEOUT_MS = 12_000;
const running = new Set<number>();

/** Runs a shell in its own process group, in `work`; past 12 s it is killed with all it started. */
export function runShell(shell: CompletionShell, args: readonly string[], home: Pick<CompletionHome, 'env' | 'work'>, extraEnv: NodeJS.ProcessEnv = {}): Promise<ShellRun> {
  return new Promise((done, fail) => {
    const child = spawn(shell, args, { env: { ...home.env, ...extraEnv }, cwd: home.work, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) running.add(child.pid);
    let stdout = '';
    let output = '';
    child.stdout.on('data', (d: Buffer) => ((stdout += d.toString()), (output += d.toString())));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const settle = (): void => {
      clearTimeout(timer);
      if (child.pid !== undefined) running.delete(child.pid);
    };
    const timer = setTimeout(() => {
      killGroup(child.pid);
      fail(new Error(`${shell} ${args.join(' ')} did not finish within ${SHELL_TIMEOUT_MS} ms; it printed:\n${output}`));
    }, SHELL_TIMEOUT_MS);
    child.on('error', (err) => (settle(), fail(err)));
    child.on('close', (code) => (settle(), done({ code, stdout, output })));
  });
}

/** For afterAll: kills every shell runShell started that is still running, with what it started. */
export function killRunningShells(): void {
  for (const pid of running) killGroup(pid);
  running.clear();
}
