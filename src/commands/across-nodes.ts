import { acrossNodes, formatAcrossNodes, type AcrossNodes } from '../core/across-nodes.js';
import { ExitCode } from '../core/exit-codes.js';
import { readAcrossNodes } from '../inspect/across-nodes.js';
import { collectLocks } from '../inspect/scan-locks.js';
import { checkRedlockNodes, openLockEnv } from '../locks/env.js';
import { quorumOf } from '../locks/redlock-nodes.js';
import type { Connection } from '../redis/connection.js';
import type { TargetSpec } from '../redis/target.js';
import { note, print, printJson, type RunContext } from './context.js';

// --nodes on inspect, ls, release and renew: a Redlock lock is one copy per independent primary,
// so these show which nodes hold a copy, with its value and TTL there.

export { addNodesOption } from './options.js';

/** Each key across the nodes, counted against their majority. */
export async function keysAcrossNodes(nodes: readonly Connection[], keys: readonly string[]): Promise<AcrossNodes[]> {
  const copies = await readAcrossNodes(nodes, keys);
  return keys.map((key, i) => acrossNodes(key, copies[i]!, quorumOf(nodes.length)));
}

/** Opens the nodes (a minority may be down), runs `fn`, closes them. */
async function withNodes<T>(nodeSpecs: readonly TargetSpec[], spec: TargetSpec, fn: (nodes: readonly Connection[]) => Promise<T>): Promise<T> {
  const env = await openLockEnv(spec, { mode: 'one-shot', name: 'redlock-cli:nodes', pubsub: 'plain', nodes: checkRedlockNodes(nodeSpecs) });
  try {
    return await fn(env.nodes);
  } finally {
    await env.close();
  }
}

function printAll(ctx: RunContext, all: readonly AcrossNodes[], json: boolean): void {
  if (json) return printJson(ctx, all);
  all.forEach((a, i) => {
    if (i > 0) print(ctx, '');
    for (const line of formatAcrossNodes(a)) print(ctx, line);
  });
}

/** `inspect k... --nodes`: exit 4 when some key has no copy on any node. */
export function inspectAcrossNodes(ctx: RunContext, nodeSpecs: readonly TargetSpec[], spec: TargetSpec, keys: readonly string[], json: boolean): Promise<number> {
  return withNodes(nodeSpecs, spec, async (nodes) => {
    const all = await keysAcrossNodes(nodes, keys);
    printAll(ctx, all, json);
    return all.some((a) => a.held === 0) ? ExitCode.notFound : ExitCode.ok;
  });
}

/** `ls [pattern] --nodes`: every lock key found on any node, then each read across all of them. */
export function lsAcrossNodes(ctx: RunContext, nodeSpecs: readonly TargetSpec[], spec: TargetSpec, pattern: string, json: boolean): Promise<number> {
  return withNodes(nodeSpecs, spec, async (nodes) => {
    const found = await Promise.all(nodes.filter((n) => !n.offline).map((n) => collectLocks(n, { pattern })));
    const keys = [...new Set(found.flatMap((f) => f.views.map((v) => v.key)))].sort();
    if (keys.length === 0) note(ctx, `no locks match ${pattern} on any node`);
    printAll(ctx, await keysAcrossNodes(nodes, keys), json);
    return ExitCode.ok;
  });
}

/** After release/renew of a Redlock lock: which nodes hold a copy now (stderr: it is a message). */
export async function noteAcrossNodes(ctx: RunContext, nodes: readonly Connection[], key: string): Promise<void> {
  const [state] = await keysAcrossNodes(nodes, [key]);
  for (const line of formatAcrossNodes(state!)) note(ctx, line);
}
