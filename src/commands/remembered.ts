import type { Command } from 'commander';
import { safeText } from '../core/terminal-text.js';
import { UsageError } from '../core/errors.js';
import { identityOwner, parseOwner } from '../locks/owners.js';
import { parseKind, protocolFor } from '../locks/registry.js';
import { LOCK_KINDS, type LockKind } from '../locks/types.js';
import { ownersOf, type RememberedLock } from '../state/owners.js';
import type { RunContext } from './context.js';
import { DEFAULT_LEASE_MS } from './acquire.js';
import type { LockFlags } from './options.js';

/** The lock a release/renew acts on: explicit flags first, then what `acquire` remembered. */
export interface ResolvedHold {
  readonly kind: LockKind;
  readonly owner: string;
  /** Lease re-applied to a remaining re-entrant hold (Redisson's internalLockLeaseTime). */
  readonly leaseMs: number;
  readonly remembered?: RememberedLock | undefined;
}

/** `targetOf(kind)` names the target as acquire remembered it (Redlock: the node set). */
export function resolveHold(
  cmd: Command,
  key: string,
  flags: LockFlags,
  targetOf: (kind: LockKind) => string,
  ctx: RunContext,
): ResolvedHold {
  const kindGiven = cmd.getOptionValueSource('kind') === 'cli';
  const kinds: LockKind[] = kindGiven ? [parseKind(flags.kind)] : [...LOCK_KINDS];
  const candidates = kinds.flatMap((kind) => ownersOf(ctx.env, safeTarget(targetOf, kind), key).filter((e) => e.kind === kind));
  if (flags.owner !== undefined) {
    const given = flags.owner.trim();
    const match = candidates.find((e) => e.owner === given || e.owner === given.toLowerCase());
    const kind = kindGiven ? parseKind(flags.kind) : (match?.kind ?? parseKind(flags.kind));
    const owner = parseOwner(protocolFor(kind), flags.owner);
    const remembered = candidates.find((e) => e.owner === owner && e.kind === kind);
    return { kind, owner, leaseMs: remembered?.leaseMs ?? DEFAULT_LEASE_MS, remembered };
  }
  if (ctx.identity) {
    // A REPL client releases its own holds: its owner is fixed, so the memory only says which kind.
    const identity = ctx.identity;
    const mine = candidates.filter((e) => e.owner === identityOwner(protocolFor(e.kind), identity));
    const kind = kindGiven || mine.length !== 1 ? parseKind(flags.kind) : mine[0]!.kind;
    const remembered = mine.find((e) => e.kind === kind);
    return { kind, owner: identityOwner(protocolFor(kind), identity), leaseMs: remembered?.leaseMs ?? DEFAULT_LEASE_MS, remembered };
  }
  if (candidates.length === 0) {
    throw new UsageError(`no owner of "${safeText(key)}" remembered on this machine for ${safeTarget(targetOf, kindGiven ? parseKind(flags.kind) : 'reentrant')}: pass --owner (acquire prints it)`);
  }
  if (candidates.length > 1) {
    throw new UsageError(
      `${candidates.length} owners of "${safeText(key)}" remembered (${candidates.map((c) => `${c.kind} ${c.owner}`).join('; ')}): pass --owner`,
    );
  }
  const only = candidates[0]!;
  return { kind: only.kind, owner: only.owner, leaseMs: only.leaseMs, remembered: only };
}

/** Without --nodes a Redlock target cannot be named; that just means no Redlock entry matches. */
function safeTarget(targetOf: (kind: LockKind) => string, kind: LockKind): string {
  try {
    return targetOf(kind);
  } catch {
    return '';
  }
}
