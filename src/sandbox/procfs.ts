import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

// Everything here reads /proc for one pid. A pid is only ever signalled after ownedBy() proved it is
// the sandbox's own server: pids are reused, and a stale state file must never hurt a stranger.

/** The fields of /proc/<pid>/stat after the command name (state, ppid, pgrp, ...); undefined once it is gone. */
export function procStat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may contain spaces: split after its closing parenthesis.
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The process exists and is not a zombie (a SIGKILLed child stays a zombie until reaped). */
export function isAlive(pid: number): boolean {
  const fields = procStat(pid);
  return fields !== undefined && fields[0] !== 'Z' && fields[0] !== 'X';
}

/** SIGSTOPped (state T). */
export function isStopped(pid: number): boolean {
  return procStat(pid)?.[0] === 'T';
}

/** True when the process leads its own process group (we start every node with setsid). */
export function leadsGroup(pid: number): boolean {
  return procStat(pid)?.[2] === String(pid);
}

export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * The pid is a live process whose command line names `marker` (the node's config file, which
 * lives in the sandbox dir) and, when `cwd` is given, whose working directory is `cwd`.
 */
export function ownedBy(pid: number, marker: string, cwd?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid || !isAlive(pid)) return false;
  if (!cmdline(pid).includes(marker)) return false;
  if (cwd === undefined) return true;
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === cwd;
  } catch {
    return false;
  }
}

/** Resident memory in kB (VmRSS), or undefined when the process is gone. */
export function rssKb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Live processes that run inside `dir` and name it in their command line: a node spawned by an
 * `up` that was killed before it could record the pid is still found, and nothing else is.
 */
export function processesUnder(dir: string): number[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    if (!cmdline(pid).includes(prefix) || !isAlive(pid)) continue;
    try {
      if (`${readlinkSync(`/proc/${pid}/cwd`)}/`.startsWith(prefix)) found.push(pid);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
