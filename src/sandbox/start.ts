import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatDuration } from '../core/duration.js';
import { InterruptedError, UsageError } from '../core/errors.js';
import { sandboxCommand } from '../core/sandbox-hint.js';
import { findRedisServer } from './binary.js';
import { redisConf } from './config.js';
import { formCluster } from './form-cluster.js';
import { waitReplicationLive } from './form-replication.js';
import { startSentinels } from './form-sentinel.js';
import { Sandbox, type SandboxHandle } from './handle.js';
import { freePort } from './node-process.js';
import { planTopology, type PlannedNode } from './plan.js';
import { cleanSandboxDir, staleReason } from './registry.js';
import { checkName, DEFAULT_SANDBOX, logPath, readState, sandboxesRoot, withNode, writeState } from './state.js';
import { Supervisor } from './supervisor.js';
import type { NodeRecord, SandboxState, StartOptions } from './types.js';

// Fresh sentinels mark everything down once, ~500 ms after start; faults wait this long after it.
const SENTINEL_SETTLE_MS = 1250;

async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  for (let i = 0; ports.size < count && i < count * 10; i++) ports.add(await freePort());
  if (ports.size < count) throw new Error(`could not find ${count} free loopback ports`);
  return [...ports];
}

async function startRedisNodes(sup: Supervisor, planned: readonly PlannedNode[], ports: readonly number[], opts: StartOptions): Promise<NodeRecord[]> {
  const cluster = opts.topology === 'cluster';
  const portOf = new Map(planned.map((p, i) => [p.name, ports[i]!]));
  const launch = (p: PlannedNode): Promise<NodeRecord> => {
    const port = portOf.get(p.name)!;
    // A cluster replica is attached with CLUSTER REPLICATE once the cluster knows it, not replicaof.
    const upstream = !cluster && p.replicaOf !== undefined ? portOf.get(p.replicaOf) : undefined;
    opts.onProgress?.(`starting ${p.name} (${p.role}) on 127.0.0.1:${port}`);
    const conf = redisConf(sup.dir, p.name, port, { cluster }) + (upstream !== undefined ? `replicaof 127.0.0.1 ${upstream}\n` : '');
    return sup.launch({ name: p.name, role: p.role, port, conf, replicaOf: p.replicaOf, env: opts.nodeEnv?.[p.name] }, opts.signal);
  };
  // Primaries first, so replicas find them listening.
  const primaries = await Promise.all(planned.filter((p) => p.role === 'primary').map(launch));
  const replicas = await Promise.all(planned.filter((p) => p.role === 'replica').map(launch));
  return [...primaries, ...replicas];
}

async function form(sup: Supervisor, planned: readonly PlannedNode[], ports: readonly number[], opts: StartOptions): Promise<void> {
  const redisPlan = planned.filter((p) => p.role !== 'sentinel');
  const nodes = await startRedisNodes(sup, redisPlan, ports, opts);
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const primaries = nodes.filter((n) => n.role === 'primary');
  const replicas = nodes.filter((n) => n.role === 'replica');
  if (opts.topology === 'cluster') {
    opts.onProgress?.('forming the cluster (slots, MEET, replicas)');
    await formCluster(primaries, replicas.map((r) => ({ node: r, of: byName.get(r.replicaOf!)! })), opts.signal);
  } else if (replicas.length > 0) {
    opts.onProgress?.('waiting until a probe write reaches every replica');
    await waitReplicationLive(primaries[0]!.port, replicas.map((r) => ({ port: r.port, log: logPath(sup.dir, r.name) })), { signal: opts.signal });
  }
  if (opts.topology === 'sentinel') {
    const sentinels = planned.filter((p) => p.role === 'sentinel');
    opts.onProgress?.(`starting ${sentinels.length} sentinels`);
    const startedAt = Date.now();
    await startSentinels(sup, sentinels.map((s) => s.name), ports.slice(redisPlan.length), primaries[0]!, replicas, opts.signal);
    sup.update((s) => ({ ...s, settledAt: startedAt + SENTINEL_SETTLE_MS }));
  }
  if (opts.proxy) {
    for (const node of nodes) {
      const proxy = await opts.proxy.start({ sandbox: sup.state.name, dir: sup.dir, node: node.name, port: node.port });
      sup.update((s) => withNode(s, node.name, { proxy }));
    }
  }
}

/**
 * Starts a topology on free loopback ports and returns once it is formed: every node answers,
 * replication carries writes, sentinels agree, cluster slots are covered. Anything that goes wrong
 * (or an abort) stops what was started before the error is rethrown.
 */
export async function startSandbox(opts: StartOptions): Promise<SandboxHandle> {
  const env = opts.env ?? process.env;
  const name = checkName(opts.name ?? DEFAULT_SANDBOX);
  const planned = planTopology(opts.topology, { nodes: opts.nodes, replicas: opts.replicas });
  const redisServer = findRedisServer(opts.redisServer, env);
  const dir = join(sandboxesRoot(opts.dir, env), name);
  const previous = readState(dir);
  if (previous && staleReason(previous, new Supervisor({ ...previous, dir }, false)) === undefined) {
    throw new UsageError(`sandbox "${name}" is already up (${previous.topology}): stop it with: ${sandboxCommand(name, 'down')}, or pick another --name`);
  }
  if (existsSync(dir)) {
    opts.onProgress?.(`cleaning up sandbox "${name}" left over from an earlier run`);
    await cleanSandboxDir(dir);
  }
  const state: SandboxState = {
    version: 1,
    name,
    topology: opts.topology,
    dir,
    redisServer,
    createdAt: new Date().toISOString(),
    status: 'starting',
    supervisorPid: process.pid,
    ...(opts.topology === 'sentinel' ? { masterName: 'mymaster' } : {}),
    nodes: [],
  };
  writeState(state);
  const sup = new Supervisor(state, opts.persist !== true, opts.proxy);
  const started = Date.now();
  try {
    const ports = await distinctPorts(planned.length);
    await form(sup, planned, ports, opts);
    sup.update((s) => ({ ...s, status: 'up' }));
    opts.onProgress?.(`formed in ${formatDuration(Date.now() - started)}`);
    return new Sandbox(sup);
  } catch (err) {
    await sup.stopAll().catch(() => undefined);
    if (opts.signal?.aborted) throw new InterruptedError(`interrupted: stopped the ${sup.state.nodes.length} process(es) already started and removed ${dir}`);
    throw err;
  }
}
