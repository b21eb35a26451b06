// Whether this process may open the sockets a race needs: one connection per client per node,
// plus a subscriber connection per client for locks whose waiters listen for unlock messages.

import type { RaceKind } from './plan.js';

/** Kinds whose waiters subscribe to an unlock channel (one more connection per client). */
const SUBSCRIBING: readonly RaceKind[] = ['reentrant', 'fenced', 'fair', 'write'];
/** Descriptors a Node process uses before any client: stdio, the event loop, IPC, the sandbox's own clients. */
export const BASE_FDS = 64;

/** Sockets one client holds: a connection per node (Redlock) plus a subscriber where waiters listen. */
export function connectionsPerClient(kind: RaceKind, nodes: number): number {
  return Math.max(1, nodes) + (SUBSCRIBING.includes(kind) ? 1 : 0);
}

/** The soft "Max open files" limit from /proc/<pid>/limits text; undefined when unlimited or absent. */
export function parseOpenFilesLimit(limits: string): number | undefined {
  const match = /^Max open files\s+(\S+)/m.exec(limits);
  if (!match || match[1] === 'unlimited') return undefined;
  const n = Number(match[1]);
  return Number.isFinite(n) ? n : undefined;
}

/** A one-line refusal when `clients` clients in one process need more descriptors than `limit`; else undefined. */
export function fdShortfall(clients: number, perClient: number, limit: number | undefined): string | undefined {
  const needed = clients * perClient + BASE_FDS;
  if (limit === undefined || needed <= limit) return undefined;
  return (
    `${clients} clients in one process need about ${needed} open files, and ulimit -n is ${limit}: ` +
    `raise it for this shell (ulimit -n ${needed}) or spread the clients over processes with --procs`
  );
}
