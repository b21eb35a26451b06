// Where a race's clients connect: a sandbox started for this race (the topology its kind and
// chaos need, stopped afterwards), a sandbox already running (--sandbox), or the user's own
// server, Sentinel or Cluster (whatever the connection options resolved to).

import { UsageError } from '../core/errors.js';
import { openLockEnv } from '../locks/env.js';
import { escapeControls } from '../core/decode/escape.js';
import { keysRaceWrites } from '../core/race/keys.js';
import { lockKindOf } from '../locks/family.js';
import type { LockEnv } from '../locks/types.js';
import type { ChaosVerb, RacePlan } from '../core/race/plan.js';
import { DEFAULT_URL, describeTarget, parseEndpointUrl, type TargetSpec } from '../redis/target.js';
import { loadSandbox, startSandbox, type SandboxHandle, type TopologyName } from '../sandbox/index.js';

export interface RaceTargetHandle {
  /** "sandbox race-1234 (single, started for this race)" or "127.0.0.1:6379". */
  readonly label: string;
  readonly spec: TargetSpec;
  /** Redlock: every independent primary. */
  readonly nodes?: readonly TargetSpec[] | undefined;
  /** Node names for the history's lanes. */
  readonly nodeNames: readonly string[];
  readonly sandbox?: SandboxHandle | undefined;
  /** The node chaos verbs act on (`primary` is resolved by the sandbox at the time). */
  readonly chaosNode: string;
  /** Stops the sandbox when this race started it; leaves anything else running. */
  close(): Promise<void>;
}

export interface TargetOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((line: string) => void) | undefined;
}

/** Redlock nodes for a race: three independent primaries make a majority of two. */
export const RACE_REDLOCK_NODES = 3;
const NEEDS_PROXY: readonly ChaosVerb[] = ['latency', 'partition'];

/** The sandbox topology a fresh race needs for its kind and chaos verb. */
export function topologyFor(plan: Pick<RacePlan, 'kind' | 'chaos'>): TopologyName {
  if (plan.kind === 'redlock') return 'redlock';
  return plan.chaos === 'failover' ? 'sentinel' : 'single';
}

let started = 0;

/** Opens the plan's target; a fresh sandbox is stopped again if anything after its start fails. */
export async function openTarget(plan: RacePlan, opts: TargetOptions): Promise<RaceTargetHandle> {
  const t = plan.target;
  if (t.type === 'url') {
    const nodes = plan.kind === 'redlock' ? t.nodes : undefined;
    // Never the URL itself: it may carry a password.
    const label = nodes ? `Redlock nodes ${nodes.map(describeTarget).join(', ')}` : describeTarget(t.endpoint);
    return { label, spec: t.endpoint, nodes, nodeNames: [], chaosNode: '', close: async () => {} };
  }
  if (t.type === 'sandbox') {
    const sandbox = await loadSandbox(t.name, { env: opts.env, howToName: '--sandbox <name>' });
    checkSandbox(sandbox, plan);
    return fromSandbox(sandbox, plan, `sandbox ${sandbox.name} (${sandbox.topology})`, async () => {});
  }
  const topology = topologyFor(plan);
  const proxy = plan.chaos !== undefined && NEEDS_PROXY.includes(plan.chaos) ? await import('../sandbox/proxy-hook.js').then((m) => m.proxyHook()) : undefined;
  const sandbox = await startSandbox({
    topology,
    name: `race-${process.pid}-${++started}`,
    ...(topology === 'redlock' ? { nodes: RACE_REDLOCK_NODES } : {}),
    redisServer: t.redisServer,
    env: opts.env,
    proxy,
    signal: opts.signal,
    onProgress: opts.onProgress,
  });
  return fromSandbox(sandbox, plan, `sandbox ${sandbox.name} (${topology}, started for this race)`, async () => {
    await sandbox.stop();
  });
}

/** A running sandbox must fit the kind and the chaos verb; said before any client starts. */
function checkSandbox(sandbox: SandboxHandle, plan: RacePlan): void {
  const topo = sandbox.topology;
  if (plan.kind === 'redlock' && topo !== 'redlock') throw new UsageError(`--kind redlock needs a redlock sandbox, and ${sandbox.name} is ${topo}`);
  if (plan.chaos === 'failover' && topo !== 'sentinel' && topo !== 'replicated') {
    throw new UsageError(`--chaos failover needs a sentinel or replicated sandbox, and ${sandbox.name} is ${topo}`);
  }
  if (plan.chaos !== undefined && NEEDS_PROXY.includes(plan.chaos) && !sandbox.nodes.some((n) => n.proxy)) {
    throw new UsageError(`--chaos ${plan.chaos} goes through the fault proxy: start the sandbox with sandbox up --proxy`);
  }
}

function fromSandbox(sandbox: SandboxHandle, plan: RacePlan, label: string, close: () => Promise<void>): RaceTargetHandle {
  const urls = sandbox.urls;
  const names = Object.keys(urls.nodes);
  const first = parseEndpointUrl(Object.values(urls.nodes)[0] ?? DEFAULT_URL);
  const multi = sandbox.topology === 'redlock' || sandbox.topology === 'cluster';
  const common = { label, sandbox, nodeNames: names, chaosNode: multi ? (names[0] ?? 'n1') : 'primary', close };
  if (plan.kind === 'redlock') return { ...common, spec: first, nodes: Object.values(urls.nodes).map((url) => parseEndpointUrl(url)) };
  if (urls.sentinel) {
    const sentinels = urls.sentinel.hosts.map((h) => ({ host: '127.0.0.1', port: Number(h.split(':')[1]) }));
    return { ...common, spec: { ...first, sentinels, masterName: urls.sentinel.masterName } };
  }
  if (urls.cluster) {
    const clusterNodes = urls.cluster.seeds.map((h) => ({ host: '127.0.0.1', port: Number(h.split(':')[1]) }));
    return { ...common, spec: { ...first, clusterNodes } };
  }
  return { ...common, spec: urls.primary !== undefined ? parseEndpointUrl(urls.primary) : first };
}

/**
 * Refuses, before any client starts, a race on keys it must not write. On a sandbox: keys that
 * hold something other than a lock of the race's kind (application data, another lock family),
 * as `acquire` would: a race whose every acquisition fails on such a key proves nothing. On any
 * other server: every key that exists at all, lock or not, since it may be someone's. A fresh
 * sandbox is empty: nothing to read.
 */
export async function refuseKeysInUse(plan: RacePlan, target: RaceTargetHandle): Promise<void> {
  if (plan.target.type === 'fresh') return;
  const env = await openLockEnv(target.spec, { mode: 'one-shot', name: 'redlock-cli:race-check', pubsub: 'plain', nodes: target.nodes });
  try {
    if (plan.target.type === 'url') await refuseExistingKeys(env, plan);
    else for (const key of plan.keys) await lockKindOf(env, key, { kind: plan.kind });
  } finally {
    await env.close();
  }
}

/** One line naming the first key of the race that exists on the target (on any reachable Redlock node); read-only. */
async function refuseExistingKeys(env: LockEnv, plan: RacePlan): Promise<void> {
  const conns = env.nodes.length > 0 ? env.nodes.filter((n) => !n.offline) : [env.conn];
  for (const name of plan.keys) {
    for (const key of keysRaceWrites(plan.kind, name)) {
      for (const conn of conns) {
        if ((await conn.client.exists(key)) === 0) continue;
        const type = await conn.client.type(key);
        throw new UsageError(
          `"${escapeControls(key)}" already exists on ${conn.label} (a ${type}): on a server that is not a redlock-cli sandbox, race only takes keys that do not exist, and nothing was changed; race on other names, e.g. with a prefix: race:${escapeControls(name)}`,
        );
      }
    }
  }
}
