// What the REPL's clients hold: locks `acquire` took (from the owner memory acquire and release
// keep, matched to each client's fixed owner) and locks held by background `hold` jobs (from
// their event stream). The panel shows them with what Redis says about each key.

import type { HoldEvent, HoldMode } from '../core/hold-events.js';
import type { LockView } from '../core/lock-view.js';
import type { RedissonOwner } from '../core/owner.js';
import { identityOwner } from '../locks/owners.js';
import { protocolFor } from '../locks/registry.js';
import type { LockKind } from '../locks/types.js';
import { loadOwners } from '../state/owners.js';
import { viewShows } from './held-view.js';

export interface HeldLock {
  readonly client: string;
  readonly key: string;
  readonly kind: LockKind;
  readonly owner: string;
  /** The owner memory's target description: release must go to the same place. */
  readonly target?: string | undefined;
  /** The server it lives on as the prompt names it (`127.0.0.1:6379`, `sandbox:single`), for the panel and the exit question. */
  readonly where?: string | undefined;
  readonly via: 'acquire' | 'hold';
  readonly jobId?: number | undefined;
  readonly mode?: HoldMode | undefined;
  readonly leaseMs: number;
  /** Local time it was taken (or last renewed by `renew`): a read from before says nothing about it. */
  readonly since: number;
  readonly renewals: number;
}

/** A client waiting for a key: a background `hold --wait`, or the command running now. */
export interface Waiting {
  readonly client: string;
  readonly key: string;
  /** The server it waits on, as the prompt names it. */
  readonly where?: string | undefined;
  readonly jobId?: number | undefined;
  readonly untilAt?: number | undefined;
}

/** The locks `acquire` left held by these clients, according to the owner memory. */
export function acquiredLocks(env: Readonly<Record<string, string | undefined>>, clients: ReadonlyMap<string, RedissonOwner>, now = Date.now()): HeldLock[] {
  const out: HeldLock[] = [];
  for (const entry of loadOwners(env)) {
    if (entry.expiresAt <= now) continue;
    for (const [client, identity] of clients) {
      if (entry.owner !== identityOwner(protocolFor(entry.kind), identity)) continue;
      out.push({
        client,
        key: entry.key,
        kind: entry.kind,
        owner: entry.owner,
        target: entry.target,
        via: 'acquire',
        leaseMs: entry.leaseMs,
        since: entry.expiresAt - entry.leaseMs,
        renewals: 0,
      });
    }
  }
  return out;
}

/** Locks still held as far as the last read knows: a read sent after the lock was taken and not showing it means it is gone. */
export function stillHeld(locks: readonly HeldLock[], views: Readonly<Record<string, LockView>>, readAt: number | undefined): HeldLock[] {
  return locks.filter((lock) => {
    const view = views[lock.key];
    if (!view || readAt === undefined || readAt < lock.since) return true;
    return viewShows(view, lock.owner);
  });
}

/** One line of `hold --json` turned back into the event it describes, with the lock it is about. */
export interface ParsedHoldLine {
  readonly event: HoldEvent;
  readonly key?: string | undefined;
  readonly kind?: string | undefined;
  readonly owner?: string | undefined;
}

/** Parses an NDJSON event line of `hold --json`; anything else (the held command's output) is undefined. */
export function parseHoldLine(line: string): ParsedHoldLine | undefined {
  if (!line.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { event, at, key, kind, owner, ...fields } = value as Record<string, unknown>;
  if (typeof event !== 'string' || typeof at !== 'string') return undefined;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return { event: { ...fields, type: event, at: Date.parse(at) } as HoldEvent, key: str(key), kind: str(kind), owner: str(owner) };
}
