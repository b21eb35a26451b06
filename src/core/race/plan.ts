// What a race runs: validated once, before any server or client starts, so bad input costs
// nothing and exits 2. Pure: the command parses strings into this, the runner only reads it.

import { unknownChoiceMessage } from '../foreign-names.js';
import type { Endpoint } from '../endpoint.js';
import { UsageError } from '../errors.js';

export const HOLD_DISTS = ['fixed', 'uniform', 'exp'] as const;
export type HoldDist = (typeof HOLD_DISTS)[number];

/** Faults a race can inject; pause and kill-holder act on a client, the rest on a sandbox node. */
export const CHAOS_VERBS = ['pause', 'kill-holder', 'failover', 'latency', 'clock', 'partition'] as const;
export type ChaosVerb = (typeof CHAOS_VERBS)[number];

/** Faults on the race's own clients (its processes, its sockets): the only ones a server not a sandbox ever gets. */
export const CLIENT_VERBS: readonly ChaosVerb[] = ['pause', 'kill-holder'];

/** `safe`: the protocol's owner-checked release; `naive-del`: a plain DEL, whoever holds the lock. */
export const RELEASE_MODES = ['safe', 'naive-del'] as const;
export type ReleaseMode = (typeof RELEASE_MODES)[number];

/** Lock kinds a race can drive: exclusive ones (read locks are shared by design). */
export const RACE_KINDS = ['reentrant', 'fair', 'spin', 'fenced', 'token', 'redlock', 'write'] as const;
export type RaceKind = (typeof RACE_KINDS)[number];

/** Where the clients go: a sandbox this race starts (and stops), a named running sandbox, or a URL. */
export type RaceTarget =
  /** A sandbox started for this race; `redisServer` is the binary its nodes run (--redis-server). */
  | { readonly type: 'fresh'; readonly redisServer?: string | undefined }
  | { readonly type: 'sandbox'; readonly name?: string | undefined }
  /**
   * The user's own server, Sentinel or Cluster (the connection flags, a saved target, REDIS_URL), or
   * Redlock's --nodes: only keys that do not exist there are raced on, and no server fault is sent.
   */
  | { readonly type: 'url'; readonly endpoint: Endpoint; readonly nodes?: readonly Endpoint[] | undefined };

export interface RacePlan {
  readonly keys: readonly string[];
  readonly kind: RaceKind;
  readonly clients: number;
  /** Worker processes; 0 runs every client in the race process itself. */
  readonly procs: number;
  readonly durationMs: number;
  readonly leaseMs: number;
  readonly holdMs: number;
  readonly holdDist: HoldDist;
  readonly waitMs: number;
  readonly release: ReleaseMode;
  readonly renew: boolean;
  readonly chaos?: ChaosVerb | undefined;
  readonly chaosEveryMs: number;
  /** How long a pause / latency / partition lasts. */
  readonly chaosForMs: number;
  readonly target: RaceTarget;
}

/** The raw choices, before checking (durations already in ms, counts as numbers or NaN). */
export interface RaceInput extends Omit<RacePlan, 'kind' | 'chaosEveryMs' | 'chaosForMs' | 'holdDist' | 'release' | 'chaos'> {
  readonly kind: string;
  readonly holdDist: string;
  readonly release: string;
  readonly chaos?: string | undefined;
  readonly chaosEveryMs?: number | undefined;
  readonly chaosForMs?: number | undefined;
}

/** Verbs whose fault lasts --chaos-for (the others are one step). */
export const LASTING_VERBS: readonly ChaosVerb[] = ['pause', 'latency', 'partition'];

/** One client per connection: more than this is a typo, not a race this machine can run. */
export const MAX_CLIENTS = 10_000;
export const DEFAULT_CHAOS_EVERY_MS = 2000;

function oneOf<T extends string>(value: string, list: readonly T[], what: string): T {
  if ((list as readonly string[]).includes(value)) return value as T;
  throw new UsageError(unknownChoiceMessage(what, value, list));
}

/** Checks every choice and their combinations; throws UsageError (exit 2) naming the first problem. */
export function checkRacePlan(input: RaceInput): RacePlan {
  if (input.keys.length === 0) throw new UsageError('race needs at least one key');
  if (input.kind === 'read') throw new UsageError('read locks are shared by design, so they cannot race for exclusion: use --kind write');
  const kind = oneOf(input.kind, RACE_KINDS, 'lock kind');
  const holdDist = oneOf(input.holdDist, HOLD_DISTS, '--hold-dist');
  const release = oneOf(input.release, RELEASE_MODES, '--release');
  const chaos = input.chaos === undefined ? undefined : oneOf(input.chaos, CHAOS_VERBS, '--chaos verb');
  if (!Number.isInteger(input.clients) || input.clients < 1) throw new UsageError('--clients must be a whole number of at least 1');
  if (input.clients > MAX_CLIENTS) throw new UsageError(`--clients ${input.clients} is more than ${MAX_CLIENTS}`);
  if (!Number.isInteger(input.procs) || input.procs < 0) throw new UsageError('--procs must be a whole number');
  if (input.procs > input.clients) throw new UsageError(`--procs ${input.procs} is more than --clients ${input.clients}: every process needs a client`);
  if (input.holdMs >= input.durationMs) throw new UsageError('--hold must be shorter than --duration, or no client ever finishes a hold');
  if (input.chaosEveryMs !== undefined && chaos === undefined) throw new UsageError('--chaos-every goes with --chaos <verb>');
  if (input.chaosForMs !== undefined && chaos === undefined) throw new UsageError('--chaos-for goes with --chaos <verb>');
  const chaosEveryMs = input.chaosEveryMs ?? DEFAULT_CHAOS_EVERY_MS;
  // Long enough for a lease to run out during the fault, short enough to end before the next one.
  const chaosForMs = input.chaosForMs ?? Math.min(Math.max(2 * input.leaseMs + input.holdMs, 100), Math.floor(chaosEveryMs / 2));
  if (chaos !== undefined) {
    if (chaosEveryMs >= input.durationMs) throw new UsageError('--chaos-every must be shorter than --duration, or no fault ever fires');
    if (chaosForMs >= chaosEveryMs) throw new UsageError('--chaos-for must be shorter than --chaos-every');
    if (input.target.type === 'url' && !CLIENT_VERBS.includes(chaos)) {
      throw new UsageError(
        `--chaos ${chaos} faults a server, and a race never faults one that is not a redlock-cli sandbox: use --sandbox <name> (or no connection options for a sandbox of its own), or --chaos ${CLIENT_VERBS.join(' or ')}, which act on the race's own clients`,
      );
    }
    if (chaos === 'failover' && kind === 'redlock') throw new UsageError('--chaos failover needs a replica to promote, and Redlock nodes are independent primaries');
  }
  if (input.target.type === 'url' && kind === 'redlock' && (input.target.nodes?.length ?? 0) < 2) {
    throw new UsageError('--kind redlock outside a sandbox needs --nodes redis://host:port,redis://host:port,... (3 or more independent primaries)');
  }
  return { ...input, kind, holdDist, release, chaos, chaosEveryMs, chaosForMs };
}

/** "token lock, 32 clients in 4 processes, 20.0 s, lease 200 ms, hold 20 ms (exp)" parts for the header. */
export function describePlan(plan: RacePlan): string[] {
  return [
    `${plan.kind} lock on ${plan.keys.join(', ')}`,
    `${plan.clients} client${plan.clients === 1 ? '' : 's'}${plan.procs > 0 ? ` in ${plan.procs} process${plan.procs === 1 ? '' : 'es'}` : ''}`,
    `lease ${plan.leaseMs} ms${plan.renew ? ' renewed' : ' not renewed'}`,
    `hold ${plan.holdMs} ms ${plan.holdDist}`,
    `wait ${plan.waitMs} ms`,
    `release ${plan.release}`,
    ...(plan.chaos ? [`chaos ${plan.chaos} every ${plan.chaosEveryMs} ms${LASTING_VERBS.includes(plan.chaos) ? ` for ${plan.chaosForMs} ms` : ''}`] : []),
  ];
}
