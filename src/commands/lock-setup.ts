import { UsageError } from '../core/errors.js';
import type { RedissonOwner } from '../core/owner.js';
import { checkRedlockNodes, openLockEnv, type OpenLockEnv } from '../locks/env.js';
import { identityOwner, newOwner, parseOwner } from '../locks/owners.js';
import { protocolFor } from '../locks/registry.js';
import type { LockKind, LockSetup, PubSubMode } from '../locks/types.js';
import type { ConnectionProvider, ConnectMode } from '../redis/connection.js';
import { describeTarget, type TargetSpec } from '../redis/target.js';
import { checkKeyName, durationFlag, kindFlag, redlockNodesOf, valuesFlag, type LockFlags } from './options.js';

// What every lock command (acquire, hold, release, renew, force-unlock) reads from its flags
// before it touches a lock: the lock's setup, its connections, and the name it is remembered by.

export const DEFAULT_LEASE_MS = 30_000;

/**
 * `defaultLeaseMs`: the lease without --lease (undefined: the library's own default, else 30 s).
 * `identity`: the REPL client acting, whose owner is used when no --owner is given.
 */
export function lockSetup(key: string, flags: LockFlags, defaultLeaseMs: number | undefined, identity?: RedissonOwner): LockSetup {
  checkKeyName(key);
  const kind = kindFlag(flags);
  const protocol = protocolFor(kind);
  return {
    kind,
    key,
    owner:
      flags.owner !== undefined ? parseOwner(protocol, flags.owner) : identity ? identityOwner(protocol, identity) : newOwner(protocol),
    leaseMs: durationFlag(flags.lease, '--lease') ?? defaultLeaseMs ?? protocol.defaultLeaseMs ?? DEFAULT_LEASE_MS,
    waitMs: durationFlag(flags.wait, '--wait') ?? 0,
    values: valuesFlag(flags, kind, true),
  };
}

/** Connects for a lock command: the target, or every --nodes primary for Redlock. */
export function openEnvFor(
  kind: LockKind,
  spec: TargetSpec,
  flags: LockFlags,
  mode: ConnectMode,
  connections?: ConnectionProvider,
): Promise<OpenLockEnv> {
  if (kind !== 'redlock' && flags.nodes !== undefined) {
    throw new UsageError(`--nodes is for --kind redlock (independent primaries), not --kind ${kind}: use --url for one server`);
  }
  const nodes = kind === 'redlock' ? checkRedlockNodes(redlockNodesOf(flags)) : undefined;
  const pubsub = (flags.pubsub ?? 'auto') as 'auto' | PubSubMode;
  return openLockEnv(spec, { mode, name: 'redlock-cli', pubsub, nodes, connections });
}

/** The password-free name under which a lock is remembered: the target, or the Redlock node set. */
export function lockTarget(kind: LockKind, spec: TargetSpec, flags: LockFlags): string {
  if (kind !== 'redlock') return describeTarget(spec);
  return `redlock ${checkRedlockNodes(redlockNodesOf(flags)).map(describeTarget).join(',')}`;
}
