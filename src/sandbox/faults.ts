import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { sandboxCommand } from '../core/sandbox-hint.js';
import { redisConf } from './config.js';
import { signalNode } from './node-process.js';
import { isStopped } from './procfs.js';
import { call } from './resp.js';
import { currentPrimaryPort } from './primary.js';
import { confPath, nodeDir, withNode } from './state.js';
import type { Supervisor } from './supervisor.js';
import type { NodeRecord } from './types.js';

/** What a fault verb did, in one sentence a user can read. */
export interface ActionResult {
  readonly verb: string;
  readonly node: string;
  readonly pid: number;
  readonly port: number;
  readonly message: string;
  readonly ms: number;
}

export interface RestartOptions {
  /** Also delete the node's data files (its config and, in a cluster, its identity are kept). */
  readonly amnesia?: boolean;
  /** Environment for the new process (replaces the node's previous extra env), e.g. LD_PRELOAD / FAKETIME. */
  readonly env?: Readonly<Record<string, string>>;
}

// Files a restart keeps even with --amnesia: our config, a cluster node's identity, and the log.
const KEEP = new Set(['redis.conf', 'nodes.conf', 'redis.log']);

const addr = (node: NodeRecord): string => `127.0.0.1:${node.port}`;

function result(verb: string, node: NodeRecord, started: number, message: string): ActionResult {
  return { verb, node: node.name, pid: node.pid, port: node.port, message, ms: Date.now() - started };
}

/** SIGKILL: the port refuses connections until a restart. */
export async function killNodeVerb(sup: Supervisor, name: string): Promise<ActionResult> {
  const node = sup.record(name);
  const started = Date.now();
  const killed = await sup.killProcess(node);
  sup.update((s) => withNode(s, name, { state: 'killed' }));
  const message = killed
    ? `killed ${name} (SIGKILL to pid ${node.pid}): ${addr(node)} now refuses connections`
    : `${name} was not running (${node.state === 'killed' ? 'already killed' : 'its process had exited'}); marked killed`;
  return result('kill', node, started, message);
}

function forgetData(sup: Supervisor, name: string): void {
  const dir = nodeDir(sup.dir, name);
  for (const entry of readdirSync(dir)) if (!KEEP.has(entry)) rmSync(join(dir, entry), { recursive: true, force: true });
}

/**
 * SIGKILL if running, then start again on the same port. Without persistence the node always comes
 * back with no keys; a replica resyncs from the current primary (asked live, not the original one).
 */
export async function restartNodeVerb(sup: Supervisor, name: string, opts: RestartOptions = {}): Promise<ActionResult> {
  const node = sup.record(name);
  if (node.role === 'sentinel' && opts.amnesia) throw new UsageError('a sentinel holds no keys: restart it without --amnesia');
  const started = Date.now();
  await sup.killProcess(node);
  if (opts.amnesia) forgetData(sup, name);
  const env = opts.env ?? node.env;
  let replicaOf: string | undefined;
  let conf: string | undefined;
  if (node.role !== 'sentinel') {
    const primaryPort = await currentPrimaryPort(sup, node);
    replicaOf = sup.state.nodes.find((n) => n.port === primaryPort)?.name;
    const cluster = sup.state.topology === 'cluster';
    conf = redisConf(sup.dir, name, node.port, { cluster }) + (primaryPort !== undefined ? `replicaof 127.0.0.1 ${primaryPort}\n` : '');
  }
  const fresh = await sup.launch({ name, role: node.role, port: node.port, conf, replicaOf, env });
  const keys = node.role === 'sentinel' ? undefined : await call(node.port, ['DBSIZE']);
  const parts = [`restarted ${name} on ${addr(node)} in ${formatDuration(Date.now() - started)} (pid ${fresh.pid})`];
  if (keys !== undefined) parts.push(`${keys} keys: there is no persistence, so a restart always comes back empty${opts.amnesia ? ' (--amnesia also wiped its data directory)' : ''}`);
  if (replicaOf !== undefined) parts.push(`it replicates ${replicaOf}, the primary now, and resyncs from it`);
  if (env && Object.keys(env).length > 0) parts.push(`with ${Object.keys(env).join(', ')} set`);
  return result('restart', fresh, started, parts.join('; '));
}

function requireRunning(sup: Supervisor, node: NodeRecord, verb: string): void {
  if (node.state === 'killed' || !sup.owns(node)) {
    throw new UsageError(`cannot ${verb} ${node.name}: it is not running (start it again with: ${sandboxCommand(sup.state.name, 'restart', node.name)})`);
  }
}

/** SIGSTOP: connections are accepted but nothing is answered, like a long GC pause or a frozen VM. */
export function pauseNodeVerb(sup: Supervisor, name: string, forMs?: number): ActionResult {
  const node = sup.record(name);
  requireRunning(sup, node, 'pause');
  const started = Date.now();
  signalNode(node.pid, confPath(sup.dir, name), nodeDir(sup.dir, name), 'SIGSTOP');
  sup.update((s) => withNode(s, name, { state: 'paused' }));
  const until = forMs !== undefined ? ` for ${formatDuration(forMs)}` : ` until: ${sandboxCommand(sup.state.name, 'resume', name)}`;
  // Sentinel's down-after is 0.5 s here: a paused primary is failed over long before most --for ends.
  const sentinel = sup.state.topology === 'sentinel' && node.role !== 'sentinel' ? '; a primary that stays silent 0.5 s is failed over by Sentinel' : '';
  return result('pause', node, started, `paused ${name} (SIGSTOP to pid ${node.pid})${until}: ${addr(node)} accepts connections but answers nothing${sentinel}`);
}

/** SIGCONT: the node answers again, including everything queued while it was stopped. */
export function resumeNodeVerb(sup: Supervisor, name: string): ActionResult {
  const node = sup.record(name);
  requireRunning(sup, node, 'resume');
  const started = Date.now();
  const wasStopped = isStopped(node.pid);
  signalNode(node.pid, confPath(sup.dir, name), nodeDir(sup.dir, name), 'SIGCONT');
  sup.update((s) => withNode(s, name, { state: 'running' }));
  const message = wasStopped ? `resumed ${name} (SIGCONT to pid ${node.pid}): ${addr(node)} answers again` : `${name} was not paused; nothing to do`;
  return result('resume', node, started, message);
}
