import { Option, type Command } from 'commander';
import { parseDuration, type DurationBounds } from '../core/duration.js';
import { isMultiLockValue } from '../core/decode/multi-lock.js';
import { UsageError } from '../core/errors.js';
import { LOCK_KINDS, parseKind, type LockKind } from '../locks/types.js';
import type { TargetSpec } from '../redis/target.js';
import { declareConnectionOptions, resolvedConnection, type ConnectionFlags } from './connection-flags.js';
import { REDIS_SERVER_ENV } from '../core/redis-server-env.js';
import type { RunContext } from './context.js';

export type { ConnectionFlags } from './connection-flags.js';

/**
 * The connection options, the same on every command that talks to Redis (see connection-flags.ts),
 * and --pubsub, except on read-only commands (`pubsub: false`): they never send an unlock notification.
 */
export function addConnectionOptions(cmd: Command, opts: { readonly sandbox?: boolean; readonly pubsub?: boolean } = {}): Command {
  declareConnectionOptions(cmd, opts);
  if (opts.pubsub === false) return cmd;
  return cmd.addOption(
    new Option('--pubsub <mode>', 'unlock notifications: SPUBLISH on a Redis 7+ Cluster (auto), or force one')
      .choices(['auto', 'sharded', 'plain'])
      .default('auto'),
  );
}

/** The endpoint this command's line resolved to (flags, environment, target, sandbox or the REPL's target). */
export function targetSpec(flags: ConnectionFlags, _ctx?: RunContext): TargetSpec {
  return resolvedConnection(flags).endpoint;
}

/** Redlock's independent primaries for this line (--nodes, or a Redlock sandbox's), undefined when there are none. */
export function redlockNodesOf(flags: ConnectionFlags): readonly TargetSpec[] | undefined {
  return resolvedConnection(flags).nodes;
}

/**
 * --nodes: Redlock's independent primaries as URLs, one option for every command that takes them
 * (lock commands, race, trace); connection-flags.ts resolves them once, with the credentials and
 * TLS files given once applied to each.
 */
export function nodesOption(description: string): Option {
  return new Option('--nodes <url,url,...>', description);
}

export interface LockFlags extends ConnectionFlags {
  readonly kind: string;
  readonly lease?: string;
  readonly wait?: string;
  readonly owner?: string;
  readonly values?: string;
  readonly json?: boolean;
}

/** --kind, --owner, --nodes: how a command names a lock and its holder. */
export function addLockOptions(cmd: Command): Command {
  return cmd
    // choices for --help and completion; the parser for the error, with "did you mean" for other libraries' names.
    .addOption(new Option('-k, --kind <kind>', 'lock protocol').choices(LOCK_KINDS).argParser(parseKind).default('reentrant'))
    .option('--owner <owner>', 'holder: <uuid>:<thread> for Redisson kinds, the token value for token/redlock')
    .addOption(nodesOption('independent Redis primaries for --kind redlock'))
    .option('--values <v,v,...>', 'multi-lock: the values (as inspect shows them)');
}

/**
 * --values: a group multi-lock's values, comma-separated, as stored (inspect's "value (hashed)").
 * Acquiring one needs them; release and renew without them act on every value the owner holds.
 */
export function valuesFlag(flags: Pick<LockFlags, 'values'>, kind: LockKind, required: boolean): readonly string[] | undefined {
  if (flags.values === undefined) {
    if (required && kind === 'multi-lock') throw new UsageError('--kind multi-lock needs --values: the values to lock, e.g. --values q3Jm0cXkZ9b1T4uV7wYtAg,Zx8+P2lKd0aRr/5mNc1e9Q (inspect shows them)');
    return undefined;
  }
  if (kind !== 'multi-lock') throw new UsageError(`--values names a group multi-lock's values, not a ${kind} lock's: pass --kind multi-lock or leave --values out`);
  const values = flags.values.split(',').map((v) => v.trim());
  const bad = values.find((v) => !isMultiLockValue(v));
  if (bad !== undefined) {
    throw new UsageError(`--values: "${bad}" is not a stored value; Redisson stores each as 22 base64 characters, the names inspect shows`);
  }
  return [...new Set(values)];
}

/** A lock name must be a non-empty key (Redis allows "", but no lock library names one so). */
export function checkKeyName(key: string): string {
  if (key === '') throw new UsageError('the key is empty: name the lock (its Redis key), e.g. orders');
  return key;
}

/** Parses an optional duration flag, naming the flag in the error (bounds: see parseDuration). */
export function durationFlag(value: string | undefined, flag: string, bounds?: DurationBounds): number | undefined {
  return value === undefined ? undefined : parseDuration(value, `${flag} duration`, bounds);
}

export function kindFlag(flags: { kind: string }): LockKind {
  // A Redlock sandbox (or the REPL attached to one): --kind left at its default locks on all its nodes.
  if (resolvedConnection(flags).redlockByDefault) return 'redlock';
  return parseKind(flags.kind);
}

/** inspect's and ls's --nodes option. */
export function addNodesOption(cmd: Command): Command {
  return cmd.option('--nodes <url,url,...>', 'Redlock: read every one of these independent primaries and show which hold each key');
}

/** --redis-server, the same on every command that starts a sandbox (sandbox up, scenario run, race). */
export function redisServerOption(): Option {
  return new Option('--redis-server <path>', `the server binary every sandbox node runs, e.g. a valkey-server (default: $${REDIS_SERVER_ENV}, else redis-server on PATH)`);
}
