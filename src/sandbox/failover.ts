import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { MASTER_NAME } from './config.js';
import { killNodeVerb, pauseNodeVerb, type ActionResult } from './faults.js';
import { roleOf } from './form-replication.js';
import { answering, livePrimary, sentinelMasterPort } from './primary.js';
import { call } from './resp.js';
import { sentinelView } from './form-sentinel.js';
import type { Supervisor } from './supervisor.js';
import type { NodeRecord } from './types.js';
import { sleep, until } from './wait.js';

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
  );
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
  // Fresh sentinels flap briefly after start; a fault injected then would be judged on noise.
  const settle = (sup.state.settledAt ?? 0) - Date.now();
  if (settle > 0) await sleep(settle);
  const started = Date.now();
  const { from, to } = topology === 'sentinel' ? await sentinelFailover(sup, how, opts) : await manualFailover(sup, how);
  const took = formatDuration(Date.now() - started);
  const by = topology === 'sentinel' ? `Sentinel now reports ${to.name} (127.0.0.1:${to.port}) as ${MASTER_NAME}` : `promoted with REPLICAOF NO ONE`;
  const after =
    how === 'kill' ? `; ${from.name} stays killed (redlock-cli sandbox restart ${from.name} brings it back as a replica)`
    : how === 'pause' && topology === 'sentinel' ? `; ${from.name} stays paused (after redlock-cli sandbox resume ${from.name} it is a second primary until Sentinel demotes it, seconds later)`
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
