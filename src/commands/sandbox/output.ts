import { formatDuration } from '../../core/duration.js';
import { formatColumns, wrapText } from '../../core/text-layout.js';
import type { NodeStatus, SandboxHandle, SandboxStatus, SandboxUrls } from '../../sandbox/index.js';
import type { JsonOf } from '../../core/contracts/index.js';
import type { sandboxUpJson } from '../../core/contracts/sandbox.js';
import { describeFailover, describeFault } from './in-force-text.js';


const mb = (kb: number | undefined): string => (kb === undefined ? '-' : `${(kb / 1024).toFixed(1)} MB`);

function replication(n: NodeStatus): string {
  if (n.role === 'sentinel') return n.masterSeen !== undefined ? `master: ${n.masterSeen}` : '-';
  const parts: string[] = [];
  if (n.clusterState !== undefined) parts.push(`cluster ${n.clusterState}`);
  if (n.role === 'replica' && n.replicaOf !== undefined) {
    parts.push(`of ${n.replicaOf}`);
    if (n.link !== undefined && n.link !== 'up') parts.push(`link ${n.link}`);
    if (n.offset !== undefined) parts.push(`offset ${n.offset}`);
    if (n.lagBytes !== undefined) parts.push(`lag ${n.lagBytes} B`);
  } else if (n.role === 'primary' && n.offset !== undefined && n.offset > 0) {
    parts.push(`offset ${n.offset}`);
  }
  return parts.length > 0 ? parts.join(', ') : '-';
}

function address(n: NodeStatus): string {
  return `127.0.0.1:${n.port}${n.proxyPort !== undefined ? ` via :${n.proxyPort}` : ''}`;
}

/** The heading line and the node table of `status` (and of every fault verb's report). */
export function formatStatus(status: SandboxStatus, width?: number, now = Date.now()): string[] {
  const age = formatDuration(now - Date.parse(status.createdAt));
  const master = status.master
    ? `, ${status.master.name} is ${status.master.node ?? 'unknown'} (${status.master.agreeing}/${status.master.sentinels} sentinels agree)`
    : '';
  const rows = status.nodes.map((n) => [
    n.name,
    n.role === 'unknown' ? '-' : n.role,
    n.state,
    address(n),
    String(n.pid),
    n.keys === undefined ? '-' : String(n.keys),
    replication(n),
    mb(n.rssKb),
  ]);
  // A line a script or a pipe reads whole; on a terminal it wraps under its label.
  const item = (head: string, text: string): string[] => (width === undefined ? [`${head}${text}`] : wrapText(text, width, { head }));
  return [
    `sandbox "${status.name}": ${status.topology}, up ${age}${master}`,
    ...(status.failover ? item('  ', describeFailover(status.name, status.failover)) : []),
    ...status.faults.flatMap((f) => item('  fault: ', describeFault(status.name, f, now))),
    // On a narrow terminal REPLICATION (the widest cell) goes under its node's row.
    ...formatColumns([['NODE', 'ROLE', 'STATE', 'ADDRESS', 'PID', 'KEYS', 'REPLICATION', 'MEMORY'], ...rows], {
      width: width === undefined ? undefined : width - 2,
      moveBelow: 6,
    }).map((l) => `  ${l}`),
  ];
}

/** How to point an application (and redlock-cli) at the sandbox. */
export function formatUrls(urls: SandboxUrls): string[] {
  const lines: string[] = [];
  if (urls.sentinel) {
    lines.push(`sentinels    ${urls.sentinel.hosts.join(',')}  master name ${urls.sentinel.masterName}`);
    lines.push(`sentinel url ${urls.sentinel.url}`);
  }
  if (urls.cluster) lines.push(`cluster seeds ${urls.cluster.seeds.join(',')}`);
  if (urls.primary) lines.push(`url          ${urls.primary}`);
  if (!urls.primary && !urls.sentinel) for (const [name, url] of Object.entries(urls.nodes)) lines.push(`${name.padEnd(12)} ${url}`);
  lines.push(`try it       redlock-cli acquire <key> ${urls.cliArgs.join(' ')}`);
  return lines;
}

/** The JSON a script gets from `up`: what is running and how to connect. */
export function sandboxJson(sandbox: SandboxHandle, formedMs?: number): JsonOf<typeof sandboxUpJson> {
  return {
    name: sandbox.name,
    topology: sandbox.topology,
    dir: sandbox.dir,
    ...(formedMs !== undefined ? { formedMs } : {}),
    nodes: sandbox.nodes.map((n) => ({ name: n.name, role: n.role, port: n.port, pid: n.pid, ...(n.proxy ? { proxyPort: n.proxy.port } : {}) })),
    urls: sandbox.urls,
  };
}
