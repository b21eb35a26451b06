import type { Command } from 'commander';
import { safeText } from '../core/terminal-text.js';
import { escapeControls } from '../core/decode/escape.js';
import { formatDuration } from '../core/duration.js';
import { NotFoundError, UsageError } from '../core/errors.js';
import type { RedissonOwner } from '../core/owner.js';
import { lockKindOf } from '../locks/family.js';
import { identityOwner, parseOwner } from '../locks/owners.js';
import { parseKind, protocolFor } from '../locks/registry.js';
import { LOCK_KINDS, type LockEnv, type LockKind } from '../locks/types.js';
import { loadOwnersChecked, type RememberedLock } from '../state/owners.js';
import { note, type RunContext } from './context.js';
import { DEFAULT_LEASE_MS } from './lock-setup.js';
import { checkKeyName, type LockFlags } from './options.js';

/** The lock a release/renew acts on: its kind (as the key in Redis says), its owner, what `acquire` remembered. */
export interface ResolvedHold {
  readonly kind: LockKind;
  readonly owner: string;
  /** Lease re-applied to a remaining re-entrant hold (Redisson's internalLockLeaseTime). */
  readonly leaseMs: number;
  readonly remembered?: RememberedLock | undefined;
}

/**
 * What is known before Redis is asked: the kind from --kind or the owner memory (undefined: the
 * key decides), and the owner from --owner, the REPL client or the memory.
 */
export interface HoldQuery {
  readonly kind?: LockKind | undefined;
  readonly ownerText?: string | undefined;
  readonly identity?: RedissonOwner | undefined;
  readonly remembered?: RememberedLock | undefined;
  /** Why no owner is known (said only once Redis confirms the key is there). */
  readonly noOwner?: UsageError | undefined;
  readonly candidates: readonly RememberedLock[];
}

/** `targetOf(kind)` names the target as acquire remembered it (Redlock: the node set). */
export async function queryHold(
  cmd: Command,
  key: string,
  flags: LockFlags,
  targetOf: (kind: LockKind) => string,
  ctx: RunContext,
): Promise<HoldQuery> {
  checkKeyName(key);
  const flagKind = cmd.getOptionValueSource('kind') === 'cli' ? parseKind(flags.kind) : undefined;
  const kinds: LockKind[] = flagKind ? [flagKind] : [...LOCK_KINDS];
  const all = (await loadOwnersChecked(ctx.env, (line) => note(ctx, line))).filter((e) => e.key === key);
  const candidates = kinds.flatMap((kind) => all.filter((e) => e.kind === kind && e.target === safeTarget(targetOf, kind)));
  if (flags.owner !== undefined) {
    const given = flags.owner.trim();
    const match = candidates.find((e) => e.owner === given || e.owner === given.toLowerCase());
    return { kind: flagKind ?? match?.kind, ownerText: flags.owner, candidates };
  }
  if (ctx.identity) {
    // A REPL client releases its own holds: its owner is fixed, so the memory only says which kind.
    const identity = ctx.identity;
    const mine = candidates.filter((e) => e.owner === identityOwner(protocolFor(e.kind), identity));
    return { kind: flagKind ?? (mine.length === 1 ? mine[0]!.kind : undefined), identity, candidates };
  }
  if (candidates.length > 1) {
    throw new UsageError(
      `${candidates.length} owners of "${safeText(key)}" remembered (${candidates.map((c) => `${c.kind} ${c.owner}`).join('; ')}): pass --owner`,
    );
  }
  const only = candidates[0];
  if (only) return { kind: only.kind, ownerText: only.owner, remembered: only, candidates };
  const where = safeTarget(targetOf, flagKind ?? 'reentrant');
  // Taken here under another --kind: say so, rather than that nothing is remembered.
  const otherKinds = [...new Set(all.filter((e) => e.target === safeTarget(targetOf, e.kind)).map((e) => e.kind))];
  const noOwner =
    flagKind && otherKinds.length > 0
      ? new UsageError(`"${safeText(key)}" was acquired here as ${otherKinds.join(' or ')}, not ${flagKind}: pass --kind ${otherKinds[0]} or leave --kind out`)
      : new UsageError(`no owner of "${safeText(key)}" remembered on this machine for ${where}: pass --owner (acquire prints it)`);
  return { kind: flagKind, noOwner, candidates };
}

/** The owner as a Redisson holder, when it looks like one: a read-write lock's half depends on it. */
function redissonHint(q: HoldQuery): string | undefined {
  if (q.identity) return `${q.identity.client}:${q.identity.thread}`;
  return q.ownerText?.trim().toLowerCase().replace(/:write$/, '');
}

/**
 * Reads the key (as inspect does) and settles the hold: the kind its data says, checked against
 * --kind and the memory (exit 2 on a contradiction), then the owner in that kind's format.
 * `missing`: what a key that does not exist means for this command.
 */
export async function settleHold(env: LockEnv, key: string, q: HoldQuery, missing: 'not-found' | 'go-on'): Promise<ResolvedHold> {
  const { kind: keyKind, raws } = await lockKindOf(env, key, { kind: q.kind, owner: redissonHint(q) });
  // A fair lock whose hash is gone may still have a queue whose head must be woken.
  const absent = raws.every((r) => r.type === 'none' && r.queueLength === 0);
  if (absent && missing === 'not-found') {
    const expiredAgo = q.remembered ? Date.now() - q.remembered.expiresAt : -1;
    const why = expiredAgo >= 0 ? `its lease ran out ${formatDuration(expiredAgo)} ago` : 'nobody holds it';
    throw new NotFoundError(`"${escapeControls(key)}" is not locked: ${why} (nothing to release)`);
  }
  if (q.noOwner) throw q.noOwner;
  const kind = keyKind ?? 'reentrant';
  const protocol = protocolFor(kind);
  const owner = q.identity ? identityOwner(protocol, q.identity) : parseOwner(protocol, q.ownerText ?? '');
  const remembered = q.remembered ?? q.candidates.find((e) => e.owner === owner && e.kind === kind);
  return { kind, owner, leaseMs: remembered?.leaseMs ?? DEFAULT_LEASE_MS, remembered };
}

/** Without --nodes a Redlock target cannot be named; that just means no Redlock entry matches. */
function safeTarget(targetOf: (kind: LockKind) => string, kind: LockKind): string {
  try {
    return targetOf(kind);
  } catch {
    return '';
  }
}
