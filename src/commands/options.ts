import { Option, type Command } from 'commander';
import { parseDuration, type DurationBounds } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { LOCK_KINDS, type LockKind } from '../locks/types.js';
import { parseKind } from '../locks/registry.js';
import { DEFAULT_REPLY_TIMEOUT_MS, DEFAULT_URL, parseHostList, type TargetSpec } from '../redis/target.js';
import type { RunContext } from './context.js';

export interface ConnectionFlags {
  /** A saved target; commands/target-use.ts turns it into the flags below before the action runs. */
  readonly target?: string;
  readonly url?: string;
  readonly sentinel?: string;
  readonly masterName?: string;
  readonly cluster?: string;
  readonly pubsub?: string;
  readonly nodes?: string;
  readonly timeout?: string;
}

/** -u/--url, --sentinel, --master-name, --cluster, --target, --pubsub: the same on every command that talks to Redis. */
export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .option('--target <name>', 'a connection saved with `redlock-cli target add` (instead of --url/--sentinel/--cluster)')
    .option('-u, --url <url>', `Redis URL, redis://[user:password@]host:port[/db] or rediss:// (env REDIS_URL, default ${DEFAULT_URL})`)
    .option('--sentinel <host:port,...>', 'connect through Redis Sentinel (needs --master-name)')
    .option('--master-name <name>', 'the master monitored by Sentinel')
    .option('--cluster <host:port,...>', 'connect to a Redis Cluster through these seed nodes')
    .option('--timeout <duration>', `how long to wait for each Redis reply before exit 3 (default ${DEFAULT_REPLY_TIMEOUT_MS / 1000}s)`)
    .addOption(
      new Option('--pubsub <mode>', 'unlock notifications: SPUBLISH on a Redis 7+ Cluster (auto), or force one')
        .choices(['auto', 'sharded', 'plain'])
        .default('auto'),
    );
}

export function targetSpec(flags: ConnectionFlags, ctx: RunContext): TargetSpec {
  if (flags.sentinel && flags.cluster) throw new UsageError('use either --sentinel or --cluster, not both');
  if (flags.masterName && !flags.sentinel) throw new UsageError('--master-name goes with --sentinel <host:port,...>');
  const url = flags.url ?? ctx.env.REDIS_URL ?? DEFAULT_URL;
  return {
    url,
    sentinels: flags.sentinel ? parseHostList(flags.sentinel, '--sentinel') : undefined,
    masterName: flags.masterName,
    clusterNodes: flags.cluster ? parseHostList(flags.cluster, '--cluster') : undefined,
    replyTimeoutMs: durationFlag(flags.timeout, '--timeout') ?? DEFAULT_REPLY_TIMEOUT_MS,
  };
}

export interface LockFlags extends ConnectionFlags {
  readonly kind: string;
  readonly lease?: string;
  readonly wait?: string;
  readonly owner?: string;
  readonly json?: boolean;
}

/** --kind, --owner, --nodes: how a command names a lock and its holder. */
export function addLockOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('-k, --kind <kind>', 'lock protocol').choices(LOCK_KINDS).default('reentrant'))
    .option('--owner <owner>', 'holder: <uuid>:<thread> for Redisson kinds, the token value for token/redlock')
    .option('--nodes <url,url,...>', 'independent Redis primaries for --kind redlock');
}

/** A lock name must be a non-empty key (Redis allows "", but no lock library names one so). */
export function checkKeyName(key: string): string {
  if (key === '') throw new UsageError('the key is empty: name the lock, e.g. redlock-cli acquire orders');
  return key;
}

/** Parses an optional duration flag, naming the flag in the error (bounds: see parseDuration). */
export function durationFlag(value: string | undefined, flag: string, bounds?: DurationBounds): number | undefined {
  return value === undefined ? undefined : parseDuration(value, `${flag} duration`, bounds);
}

export function kindFlag(flags: { kind: string }): LockKind {
  return parseKind(flags.kind);
}
