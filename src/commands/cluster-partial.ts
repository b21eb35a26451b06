import { ExitCode } from '../core/exit-codes.js';
import type { UnreadNode } from '../inspect/scan.js';
import type { UnreadKey } from '../inspect/snapshot.js';
import { note, type RunContext } from './context.js';

// ls, doctor and inspect on a Cluster with a primary down: what could be read is printed, the
// nodes that could not are named with their slot ranges on stderr, and the exit code says
// "partial" (9), so a script never takes half the locks for all of them.

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

/** inspect: one stderr line per key not read, naming the primary that owns its slot and why. */
export function reportUnreadKeys(ctx: RunContext, keys: readonly UnreadKey[]): void {
  for (const { key, unread } of keys) {
    note(ctx, `redlock-cli: "${key}" not read: its Cluster primary ${unread.node} (slots ${unread.slots}): ${unread.reason}`);
  }
}

/** inspect --json: an unread key keeps its place in the array, as an object that says where it lives. */
export const unreadJson = ({ key, keyHex, unread }: UnreadKey): Record<string, unknown> => ({
  key,
  ...(keyHex !== undefined ? { keyHex } : {}),
  kind: 'unread',
  node: unread.node,
  slots: unread.slots,
  reason: unread.reason,
});
