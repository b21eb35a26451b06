import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError, UsageError } from '../core/errors.js';
import { sandboxCommand } from '../core/sandbox-hint.js';
import { Sandbox, type SandboxHandle } from './handle.js';
import { cmdline, isAlive, processesUnder } from './procfs.js';
import { checkName, DEFAULT_SANDBOX, readState, sandboxesRoot, sandboxNames } from './state.js';
import { Supervisor } from './supervisor.js';
import type { ProxyHook, SandboxState } from './types.js';

export interface LoadOptions {
  /** Directory holding sandboxes (default `<stateDir>/sandboxes`). */
  readonly dir?: string | undefined;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly proxy?: ProxyHook;
  /**
   * How the caller's command names a sandbox (`--sandbox <name>` on `ls`, `attach <name>` in the
   * REPL; default `--name <name>`, the sandbox verbs'): the error for several sandboxes up must
   * name what the user can type on that command.
   */
  readonly howToName?: string;
}

/**
 * Why a sandbox's state no longer describes running processes, or undefined when it is live: its
 * `up` died half-way, or every process it recorded as running is gone (a crash, a reboot).
 */
export function staleReason(state: SandboxState, sup: Supervisor): string | undefined {
  if (state.status === 'starting') {
    const supervising = isAlive(state.supervisorPid) && /node|redlock/.test(cmdline(state.supervisorPid));
    return supervising ? undefined : 'its `up` stopped before the topology was formed';
  }
  const alive = state.nodes.some((n) => sup.owns(n));
  const lost = state.nodes.some((n) => n.state !== 'killed' && !sup.owns(n));
  return !alive && lost ? 'none of its processes is running any more' : undefined;
}

/** Kills whatever of a stale sandbox still runs (checked pid by pid) and removes its directory. */
export async function cleanSandboxDir(dir: string): Promise<void> {
  const state = readState(dir);
  if (state) {
    await new Supervisor({ ...state, dir }, false).stopAll();
    return;
  }
  // No readable state: only servers running inside the directory and naming it can be ours.
  for (const pid of processesUnder(dir)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}

export interface Listing {
  readonly live: readonly string[];
  /** Sandboxes found stale and cleaned up, with the reason. */
  readonly cleaned: readonly { readonly name: string; readonly reason: string }[];
}

/** The sandboxes under the root that are live; stale ones are cleaned on the way. */
export async function listSandboxes(opts: LoadOptions = {}): Promise<Listing> {
  const root = sandboxesRoot(opts.dir, opts.env ?? process.env);
  const live: string[] = [];
  const cleaned: { name: string; reason: string }[] = [];
  for (const name of sandboxNames(root)) {
    const dir = join(root, name);
    const state = readState(dir);
    const reason = state ? staleReason(state, new Supervisor({ ...state, dir }, false)) : 'it has no readable state file';
    if (reason === undefined) live.push(name);
    else {
      await cleanSandboxDir(dir);
      cleaned.push({ name, reason });
    }
  }
  return { live, cleaned };
}

/**
 * Re-attaches to a sandbox started earlier (by pids from its state file). Without a name: the only
 * live sandbox, or `default`. Stale state is cleaned and reported as not found.
 */
export async function loadSandbox(name?: string, opts: LoadOptions = {}): Promise<SandboxHandle> {
  const root = sandboxesRoot(opts.dir, opts.env ?? process.env);
  if (name === undefined) {
    const { live } = await listSandboxes(opts);
    if (live.length === 0) throw new NotFoundError('no sandbox is up: start one with: redlock-cli sandbox up');
    if (live.length > 1 && !live.includes(DEFAULT_SANDBOX)) {
      throw new UsageError(`${live.length} sandboxes are up (${live.join(', ')}): name one with ${opts.howToName ?? '--name <name>'}`);
    }
    name = live.length === 1 ? live[0]! : DEFAULT_SANDBOX;
  }
  const dir = join(root, checkName(name));
  const state = readState(dir);
  if (!state) {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    throw new NotFoundError(`no sandbox "${name}" is up: start it with: ${sandboxCommand(name, 'up')}`);
  }
  // Ownership is checked against config paths under the directory we found: if the sandbox was
  // moved, nothing matches and it is cleaned as stale without signalling anything.
  const sup = new Supervisor({ ...state, dir }, false, opts.proxy);
  const stale = staleReason(state, sup);
  if (stale !== undefined) {
    await cleanSandboxDir(dir);
    throw new NotFoundError(`sandbox "${name}" was stale (${stale}) and has been cleaned up: start it again with: ${sandboxCommand(name, 'up')}`);
  }
  return new Sandbox(sup);
}
