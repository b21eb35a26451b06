import type { NodeCopy } from '../core/across-nodes.js';
import type { LockView } from '../core/lock-view.js';
import type { Connection } from '../redis/connection.js';
import { inspectKeys } from './snapshot.js';

/** What a node's copy says: a token lock's value, else its first holder. */
function copyOf(node: string, view: LockView): NodeCopy {
  if (view.kind === 'missing') return { node, state: 'absent' };
  return { node, state: 'holds', value: view.value ?? view.holders[0]?.owner ?? view.kind, ttlMs: view.ttlMs };
}

/** Each key read on every node (one snapshot pipeline per node, all at once): per key, the node copies in node order. */
export async function readAcrossNodes(nodes: readonly Connection[], keys: readonly string[]): Promise<NodeCopy[][]> {
  const perNode = await Promise.all(
    nodes.map(async (conn): Promise<NodeCopy[]> => {
      if (conn.offline) return keys.map(() => ({ node: conn.label, state: 'unreachable', error: conn.offline!.message }));
      try {
        return (await inspectKeys(conn, keys)).map((view) => copyOf(conn.label, view));
      } catch (err) {
        return keys.map(() => ({ node: conn.label, state: 'unreachable', error: err instanceof Error ? err.message : String(err) }));
      }
    }),
  );
  return keys.map((_, k) => perNode.map((copies) => copies[k]!));
}
