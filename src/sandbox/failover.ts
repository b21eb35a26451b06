import { formatDuration } from '../core/duration.js';
import { UnreachableError, UsageError } from '../core/errors.js';
import { sandboxCommand } from '../core/sandbox-hint.js';
import { MASTER_NAME, SENTINEL_REFAILOVER_MS } from './config.js';
import { killNodeVerb, pauseNodeVerb, type ActionResult } from './faults.js';
import { roleOf } from './form-replication.js';
import { answering, livePrimary, sentinelMasterPort } from './primary.js';
import { call, pairs } from './resp.js';
import { sentinelView } from './form-sentinel.js';
import type { Supervisor } from './supervisor.js';
import type { NodeRecord } from './types.js';
import { sleep } from '../core/sleep.js';
import { until } from './wait.js';

export const FAILOVER_HOWS = ['kill', 'pause', 'force'] as const;
export type FailoverHow = (typeof FAILOVER_HOWS)[number];

export interface FailoverResult extends ActionResult {
  readonly how: FailoverHow;
  /** The primary before and after. */
  readonly from: string;
  readonly to: string;
}

const FAILOVER_TIMEOUT_MS = 15_000;

function act(sup: Supervisor, how: FailoverHow, primary: NodeRecord): Promise<unknown> {
  if (how === 'kill') return killNodeVerb(sup, primary.name);
  if (how === 'pause') return Promise.resolve(pauseNodeVerb(sup, primary.name));
  return Promise.resolve();
}

/** What each answering sentinel thinks of the master, for an error that says why no failover came. */
async function sentinelsSay(sup: Supervisor): Promise<string> {
  const byPort = new Map(sup.state.nodes.map((n) => [String(n.port), n.name]));
  const views = await Promise.all(
    answering(sup, true).map(async (s) => {
      const m = pairs(await call(s.port, ['SENTINEL', 'master', MASTER_NAME], 500).catch(() => null));
      const failover = m['failover-state'] ? `, failover ${m['failover-state']}` : '';
      return `${s.name}: master ${byPort.get(m.port ?? '') ?? m.port ?? '?'} (${m.flags ?? 'no answer'}${failover})`;
    }),
  );
  const nodes = await Promise.all(
    answering(sup, false).map(async (n) => {
      const r = await roleOf(n.port).catch(() => undefined);
      const of = r?.masterPort !== undefined ? ` of ${byPort.get(String(r.masterPort)) ?? r.masterPort} (link ${r.link})` : '';
      return `${n.name}: ${r ? `${r.role}${of}` : 'no answer'}`;
    }),
  );
  return `${views.join('; ') || 'none answers'}; the nodes say: ${nodes.join('; ')}`;
}

/**
 * Waits until Sentinel would act on a fault at once: fresh sentinels flap briefly after start, and
 * after a failover they refuse another for the same master for 2 x failover-timeout (4 s); a fault
 * injected earlier would be judged on that wait, not on the failover.
 */
async function sentinelReady(sup: Supervisor, onProgress: ((line: string) => void) | undefined): Promise<void> {
  if (sup.state.topology !== 'sentinel') return;
  const settle = (sup.state.settledAt ?? 0) - Date.now();
  const refailover = (sup.state.lastFailoverAt ?? 0) + SENTINEL_REFAILOVER_MS - Date.now();
  if (refailover > 0 && refailover >= settle) {
    onProgress?.(`Sentinel does not fail a master over again within ${formatDuration(SENTINEL_REFAILOVER_MS)} of the last failover: waiting ${formatDuration(refailover)}`);
  }
  const wait = Math.max(settle, refailover);
  if (wait > 0) await sleep(wait);
}

/** Kill or pause the primary (or ask for it) and let Sentinel promote; returns once every answering sentinel reports the new master. */
async function sentinelFailover(sup: Supervisor, how: FailoverHow, opts: FailoverOptions): Promise<{ from: NodeRecord; to: NodeRecord }> {
  const oldPort = await sentinelMasterPort(sup);
  const from = sup.state.nodes.find((n) => n.port === oldPort);
  if (!from) throw new UsageError('no sentinel answers, so none can promote a replica: restart the sentinels first');
  await act(sup, how, from);
  if (how === 'force') {
    const [sentinel] = answering(sup, true);
    await call(sentinel!.port, ['SENTINEL', 'FAILOVER', MASTER_NAME], 1000);
  }
  opts.onProgress?.(`${how === 'force' ? 'asked Sentinel to fail over' : `${how === 'kill' ? 'killed' : 'paused'} ${from.name}`}; waiting for Sentinel to promote a replica`);
  let to: NodeRecord | undefined;
  await until(
    `Sentinel to promote a replica of ${from.name}`,
    async () => {
      const views = await Promise.all(answering(sup, true).map((s) => sentinelView(s.port)));
      const ports = new Set(views.map((v) => v.masterPort));
      const [port] = ports;
      if (ports.size !== 1 || port === undefined || port === from.port) return false;
      to = sup.state.nodes.find((n) => n.port === port);
      return to !== undefined && (await roleOf(port)).role === 'master';
    },
    { signal: opts.signal, timeoutMs: FAILOVER_TIMEOUT_MS, intervalMs: 20 },
  ).catch(async (err: unknown) => {
    if (err instanceof UnreachableError) throw new UnreachableError(`${err.message}; the sentinels say: ${await sentinelsSay(sup)}`);
    throw err;
  });
  return { from, to: to! };
}

/** Without Sentinel: promote the most up-to-date answering replica by hand and repoint the others. */
async function manualFailover(sup: Supervisor, how: FailoverHow): Promise<{ from: NodeRecord; to: NodeRecord }> {
  const from = await livePrimary(sup);
  if (!from) throw new UsageError('no node answers as primary: nothing to fail over from');
  await act(sup, how, from);
  const replicas = answering(sup, false).filter((n) => n.name !== from.name);
  const offsets = await Promise.all(replicas.map((n) => roleOf(n.port).then((r) => r.offset ?? -1, () => -1)));
  const best = offsets.indexOf(Math.max(...offsets));
  const to = replicas[best];
  if (!to || offsets[best]! < 0) throw new UsageError(`no replica of ${from.name} answers: nothing to promote`);
  await call(to.port, ['REPLICAOF', 'NO', 'ONE']);
  const followers = how === 'force' ? [...replicas, from] : replicas;
  for (const n of followers) if (n !== to) await call(n.port, ['REPLICAOF', '127.0.0.1', to.port]);
  return { from, to };
}

/**
 * Moves the primary role to a replica. `kill` SIGKILLs the primary and `pause` SIGSTOPs it (both
 * leave it so, for the user to restart or resume), `force` asks Sentinel (or, without Sentinel,
 * demotes it by hand) while it keeps running.
 */
export interface FailoverOptions {
  readonly how?: FailoverHow | undefined;
  readonly signal?: AbortSignal | undefined;
  /** "killed n1; waiting for Sentinel ..." while the seconds pass. */
  readonly onProgress?: ((line: string) => void) | undefined;
}

export async function failoverVerb(sup: Supervisor, opts: FailoverOptions = {}): Promise<FailoverResult> {
  const how = opts.how ?? 'kill';
  const { topology } = sup.state;
  if (topology !== 'sentinel' && topology !== 'replicated') {
    const hint = topology === 'cluster' ? ': kill a cluster primary that has a replica (--replicas 1) and the cluster promotes it after 2 s' : '';
    throw new UsageError(`failover needs a sentinel or replicated sandbox, this one is ${topology}${hint}`);
  }
  await sentinelReady(sup, opts.onProgress);
  const started = Date.now();
  const { from, to } = topology === 'sentinel' ? await sentinelFailover(sup, how, opts) : await manualFailover(sup, how);
  if (topology === 'sentinel') sup.update((s) => ({ ...s, lastFailoverAt: Date.now() }));
  const took = formatDuration(Date.now() - started);
  const by = topology === 'sentinel' ? `Sentinel now reports ${to.name} (127.0.0.1:${to.port}) as ${MASTER_NAME}` : `promoted with REPLICAOF NO ONE`;
  const after =
    how === 'kill' ? `; ${from.name} stays killed (${sandboxCommand(sup.state.name, 'restart', from.name)} brings it back as a replica)`
    : how === 'pause' && topology === 'sentinel' ? `; ${from.name} stays paused (after ${sandboxCommand(sup.state.name, 'resume', from.name)} it is a second primary until Sentinel demotes it, seconds later)`
    : how === 'pause' ? `; ${from.name} stays paused, and when resumed it still believes it is a primary: nothing demotes it without Sentinel`
    : '';
  return {
    verb: 'failover',
    how,
    node: to.name,
    pid: to.pid,
    port: to.port,
    from: from.name,
    to: to.name,
    ms: Date.now() - started,
    message: `failover by ${how}: ${from.name} -> ${to.name} in ${took}, ${by}${after}`,
  };
}
