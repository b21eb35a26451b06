import { formatDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { sandboxCommand } from '../core/sandbox-hint.js';
import { respRunner } from './clock-runner.js';
import type { ActionResult } from './faults.js';
import { isStopped } from './procfs.js';
import type { ProxyMode } from './proxy.js';
import { controlSocketPath, proxyRequest } from './proxy-control.js';
import type { ProxyNodeStatus } from './proxy-host.js';
import { resumeReplication } from './stall.js';
import { withNode } from './state.js';
import type { Supervisor } from './supervisor.js';
import type { NodeRecord } from './types.js';

export interface ProxyActionResult extends ActionResult {
  /** The proxy after the change, or undefined when the node has none (heal of a replica stall only). */
  readonly proxy?: ProxyNodeStatus;
}

/** The proxy in front of a node; refuses nodes without one, naming how to get one. */
export function proxiedNode(sup: Supervisor, name: string, verb: string): NodeRecord & { proxy: { port: number } } {
  const node = sup.record(name);
  if (node.role === 'sentinel') {
    throw new UsageError(`${verb} works through a node's fault proxy, and ${name} is a sentinel: sentinels have none, clients reach them directly`);
  }
  if (!node.proxy) {
    throw new UsageError(`${verb} works through the fault proxy in front of ${name}, and sandbox "${sup.state.name}" was started without it: start it again with one: ${sandboxCommand(sup.state.name, 'down')}, then ${sandboxCommand(sup.state.name, 'up', '--topology', sup.state.topology, '--proxy')}`);
  }
  return node as NodeRecord & { proxy: { port: number } };
}

/** Switches the proxy in front of `name` and says what clients see now. */
export async function setProxyMode(sup: Supervisor, name: string, verb: string, mode: ProxyMode): Promise<ProxyActionResult> {
  const node = proxiedNode(sup, name, verb);
  const started = Date.now();
  const [proxy] = await proxyRequest(controlSocketPath(sup.dir), { op: 'set', node: name, mode });
  return {
    verb,
    node: name,
    pid: node.pid,
    port: node.port,
    message: describe(sup.state.name, name, proxy!, mode),
    ms: Date.now() - started,
    proxy: proxy!,
  };
}

/**
 * `heal <node>`: undoes this module's faults on a node: its proxy forwards again, and a pause from
 * stall-replication ends (CLIENT UNPAUSE, harmless without one). The pause outlives a promotion,
 * so heal applies it whatever the node's role is now.
 */
export async function healVerb(sup: Supervisor, name: string): Promise<ProxyActionResult> {
  const node = sup.record(name);
  const started = Date.now();
  const healed = node.proxy ? await setProxyMode(sup, name, 'heal', { kind: 'pass' }) : undefined;
  const parts = healed ? [healed.message] : [];
  if (node.role !== 'sentinel' && node.state !== 'killed' && sup.owns(node) && !isStopped(node.pid)) {
    await resumeReplication(respRunner(node.port));
    sup.update((s) => withNode(s, name, {}, ['stalledUntil']));
    parts.push(`${name} applies writes again (CLIENT UNPAUSE ends a stall-replication)`);
  }
  if (parts.length === 0) {
    throw new UsageError(`nothing to heal on ${name}: it has no fault proxy (sandbox up --proxy) and is not a running redis node`);
  }
  return {
    verb: 'heal',
    node: name,
    pid: node.pid,
    port: node.port,
    message: parts.join('; '),
    ms: Date.now() - started,
    ...(healed?.proxy ? { proxy: healed.proxy } : {}),
  };
}

function describe(sandbox: string, name: string, proxy: ProxyNodeStatus, mode: ProxyMode): string {
  const via = `127.0.0.1:${proxy.port}`;
  switch (mode.kind) {
    case 'latency':
      return `${name} is ${formatDuration(mode.ms)} slower per round trip for clients on ${via} (${formatDuration(Math.ceil(mode.ms / 2))} each way; replication and sentinels reach it directly)`;
    case 'cut':
      return `partitioned ${name}: connections through ${via} were reset and new ones are refused until: ${sandboxCommand(sandbox, 'heal', name)}`;
    case 'hold':
      return `holding ${name}: connections through ${via} stay open but nothing is forwarded either way until: ${sandboxCommand(sandbox, 'heal', name)}`;
    case 'pass':
      return `healed ${name}: ${via} forwards again without delay (${proxy.connections} connection(s) open)`;
  }
}
