// The command under a lock runs in a process group of its own (its pid is the group's id), so
// everything it started can be stopped together. Used by the guard (stragglers after the command
// exits, a broken lifeline, a passed deadline) and by `hold` itself when the guard is gone.

import { readdirSync } from 'node:fs';
import { procStat } from '../sandbox/procfs.js';

/** Sends `signal` to every process of the group; false if none is left to receive it. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nothing left in the group
  }
}

/**
 * Whether a process of the group can still run. A member whose parent died is reparented, and a
 * pid 1 that never reaps leaves it a zombie that kill(0) still finds, so on Linux the zombies are
 * told apart through /proc; elsewhere any member counts.
 */
export function groupRunning(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return true; // no /proc: kill(0) is all we can know
  }
  for (const pid of pids) {
    const [state, , pgrp] = procStat(Number(pid)) ?? []; // undefined: it ended while we looked
    if (Number(pgrp) === pgid && state !== undefined && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

const POLL_MS = 50;

/** Resolves true once no process of the group can run, false if `ms` passed first. */
export async function groupGoneWithin(pgid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (!groupRunning(pgid)) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, until - Date.now()))));
  }
}

/**
 * SIGTERM to the group, then SIGKILL to whatever is left after `graceMs`. Resolves with the last
 * signal sent (none if the group was already gone); after SIGKILL nothing of it runs user code again.
 */
export async function stopGroup(
  pgid: number,
  graceMs: number,
  onSignal: (signal: 'SIGTERM' | 'SIGKILL') => void = () => {},
): Promise<'SIGTERM' | 'SIGKILL' | undefined> {
  if (!groupRunning(pgid)) return undefined;
  onSignal('SIGTERM');
  signalGroup(pgid, 'SIGTERM');
  if (await groupGoneWithin(pgid, graceMs)) return 'SIGTERM';
  onSignal('SIGKILL');
  signalGroup(pgid, 'SIGKILL');
  return 'SIGKILL';
}
