import { ExitCode } from '../core/exit-codes.js';
import type { UnreadNode } from '../inspect/scan.js';
import { note, type RunContext } from './context.js';

// ls and doctor on a Cluster with a primary down: what could be read is printed, the nodes that
// could not are named with their slot ranges on stderr, and the exit code says "partial" (9), so
// a script never takes half the locks for all of them.

/** Collects unread Cluster primaries during a scan. */
export function unreadCollector(): { readonly nodes: UnreadNode[]; readonly onUnread: (node: UnreadNode) => void } {
  const nodes: UnreadNode[] = [];
  return { nodes, onUnread: (node) => void nodes.push(node) };
}

/** One stderr line per unread primary; the exit code to return instead of `code` (9 when any). */
export function reportPartial(ctx: RunContext, nodes: readonly UnreadNode[], code: number): number {
  for (const n of nodes) note(ctx, `redlock-cli: Cluster primary ${n.node} (slots ${n.slots}) not read: ${n.reason}; its keys are missing here`);
  return nodes.length > 0 && code !== ExitCode.interrupted ? ExitCode.partial : code;
}
