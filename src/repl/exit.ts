// Leaving the REPL: nothing it started may outlive it unless the user says so. Locks the clients
// hold are released (after asking), background commands are cancelled, and sandboxes started
// here are stopped only if the user answers yes.

import { loadSandbox } from '../sandbox/index.js';
import { sandboxCommand } from '../core/sandbox-hint.js';
import { parseLine } from './command-tree.js';
import type { HeldLock } from '../core/repl/screen-parts.js';
import { heldElsewhere, locksHere } from '../core/repl/selectors.js';
import type { ReplHost } from './host.js';

const yes = (answer: string): boolean => /^y(es)?$/i.test(answer);

const describe = (lock: HeldLock): string =>
  `${lock.client} holds "${lock.key}"${lock.where !== undefined ? ` on ${lock.where}` : ''}${lock.jobId !== undefined ? ` (hold %${lock.jobId})` : ''}`;

/** Runs the exit dialogue; returns without leaving if the user wants to stay. */
export async function exitRepl(session: ReplHost): Promise<void> {
  const held = heldEverywhere(session);
  if (held.length > 0) {
    const answer = await session.ask(`${held.map(describe).join(', ')}: release and leave? [y/N]`);
    if (!yes(answer)) {
      session.print('staying: nothing was released');
      return;
    }
    await releaseAll(session, held);
  }
  for (const name of session.state.startedSandboxes) {
    if (!(await isUp(session, name))) continue;
    const answer = await session.ask(`stop sandbox "${name}", started in this REPL? [y/N]`);
    if (!yes(answer)) {
      session.print(`sandbox "${name}" keeps running: ${sandboxCommand(name, 'down')} stops it`);
      continue;
    }
    await stopSandbox(session, name);
  }
  await session.close(0);
}

/** Holds of background jobs, and what `acquire` took on any target used in this session. */
function heldEverywhere(session: ReplHost): HeldLock[] {
  return [...locksHere(session.state).held, ...heldElsewhere(session.state)];
}

async function releaseAll(session: ReplHost, held: readonly HeldLock[]): Promise<void> {
  const jobs = new Set(held.map((l) => l.jobId).filter((id): id is number => id !== undefined));
  await Promise.all([...jobs].map((id) => session.stopJob(id)));
  for (const lock of held.filter((l) => l.jobId === undefined)) {
    const target = (lock.target !== undefined ? session.state.knownTargets[lock.target] : undefined) ?? session.state.target.target;
    const argv = ['release', lock.key, '--kind', lock.kind, '--all-holds'];
    await session.runForeground(session.client(lock.client), argv, `as ${lock.client} release ${lock.key}`, parseLine(session.tree, argv), { target });
  }
}

async function stopSandbox(session: ReplHost, name: string): Promise<void> {
  const argv = ['sandbox', 'down', '--name', name];
  await session.runForeground(session.client(session.state.current), argv, argv.join(' '), parseLine(session.tree, argv));
}

async function isUp(session: ReplHost, name: string): Promise<boolean> {
  try {
    await loadSandbox(name, { env: session.env });
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM / SIGHUP (the terminal went away, nobody can be asked): release what the clients hold
 * and stop the sandboxes started in this session, since nothing may outlive the REPL unasked.
 */
export async function shutdownRepl(session: ReplHost): Promise<void> {
  await releaseAll(session, heldEverywhere(session)).catch(() => undefined);
  for (const name of session.state.startedSandboxes) {
    if (await isUp(session, name)) await stopSandbox(session, name).catch(() => undefined);
  }
  await session.close(130);
}
